import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { RemovalPolicy } from 'aws-cdk-lib/core';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { acknowledge } from './acknowledge';
import { BUNDLING } from './bundling';

const PROJECT_ROOT = path.resolve(__dirname, '..');

export type NodeFunctionProps = Pick<lambda.FunctionProps, 'description' | 'memorySize' | 'timeout' | 'environment'>;

/**
 * Every function of the service: a TypeScript entry bundled by esbuild (BUNDLING), nodejs22.x on
 * arm64, with a log group of its own (one month) and a role of its own that may write to that log
 * group only (instead of the managed AWSLambdaBasicExecutionRole, which allows every log group of
 * the account). What else it may do is granted by its part of the stack (infra/iam.ts).
 */
export function nodeFunction(scope: Construct, id: string, entry: string, props: NodeFunctionProps, commandHooks?: BundlingOptions['commandHooks']): NodejsFunction {
  const entryPath = path.join(PROJECT_ROOT, entry);
  if (!existsSync(entryPath)) throw new Error(`${id}: handler file ${entry} is missing (a routed operation needs functions/<id>.ts)`);
  const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
    retention: logs.RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const role = new iam.Role(scope, `${id}Role`, {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    inlinePolicies: {
      logs: new iam.PolicyDocument({
        statements: [new iam.PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] })],
      }),
    },
  });
  const fn = new NodejsFunction(scope, id, {
    ...props,
    role,
    entry: entryPath,
    handler: 'handler',
    projectRoot: PROJECT_ROOT,
    depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
    runtime: lambda.Runtime.NODEJS_22_X,
    architecture: lambda.Architecture.ARM_64,
    logGroup,
    bundling: { ...BUNDLING, ...(commandHooks ? { commandHooks } : {}) },
  });
  acknowledge(fn, 'AwsSolutions-L1', 'Pinned to nodejs22.x, the runtime the bundles target (node22) and are tested for; moving to a newer runtime is a deliberate upgrade.');
  return fn;
}
