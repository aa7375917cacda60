import type { RemovalPolicy } from 'aws-cdk-lib/core';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { acknowledge } from './acknowledge';

export interface GeneratedSecretProps {
  description: string;
  length: number;
  removalPolicy: RemovalPolicy;
  /** Why it has no rotation schedule (the cdk-nag finding it answers). */
  whyNotRotated: string;
  /** The customer-managed key of the deployment, when there is one (context kmsKey). */
  encryptionKey?: kms.IKey;
}

/** A random secret generated once per deployment, never in git, cdk.out or a function's configuration. */
export function generatedSecret(scope: Construct, id: string, props: GeneratedSecretProps): secretsmanager.Secret {
  const secret = new secretsmanager.Secret(scope, id, {
    description: props.description,
    generateSecretString: { passwordLength: props.length, excludePunctuation: true },
    removalPolicy: props.removalPolicy,
    ...(props.encryptionKey ? { encryptionKey: props.encryptionKey } : {}),
  });
  acknowledge(secret, 'AwsSolutions-SMG4', props.whyNotRotated);
  return secret;
}
