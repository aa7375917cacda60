import { RemovalPolicy } from 'aws-cdk-lib/core';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { ACCOUNTS, CACHE, EVENTS, JOBS, type TableDef } from '../shared/db/tables';
import { acknowledge } from './acknowledge';
import { StackPart } from './part';
import { generatedSecret } from './secrets';

export interface DataProps {
  /** One customer-managed key (rotated, retained) for the tables and the secrets; else AWS-owned keys. */
  kmsKey: boolean;
}

/**
 * What the service keeps: the four DynamoDB tables from their one definition (shared/db/tables.ts,
 * which the local set-up reads too), the customer-managed key that encrypts them when the deployment
 * asks for one, and the key pepper (the HMAC key the stored API keys, session ids and invitation
 * tokens are hashed with: KEY_PEPPER_SECRET_ARN, shared/auth/hashing.ts).
 */
export class Data extends StackPart {
  readonly accounts: dynamodb.Table;
  readonly cache: dynamodb.Table;
  /** The event engine's: monitors, their state, events and deliveries, account webhook endpoints (never money). */
  readonly events: dynamodb.Table;
  /**
   * The bulk jobs' (docs/jobs.md): jobs, their inputs and the teams' delivery external IDs. Here, not
   * in the jobs' nested stack (infra/jobs.ts): an external ID is made once and pasted into a customer's
   * trust policy, and moving the table to another stack would make it a new, empty table.
   */
  readonly jobs: dynamodb.Table;
  readonly dataKey?: kms.Key;
  readonly keyPepper: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: DataProps) {
    super(scope, id);
    // Kept when the stack goes (the retained accounts table needs it), rotated yearly.
    if (props.kmsKey) this.dataKey = new kms.Key(this, 'DataKey', { description: 'Encrypts the social-data-api tables and secrets', enableKeyRotation: true, removalPolicy: RemovalPolicy.RETAIN });
    this.accounts = this.table('AccountsTable', ACCOUNTS);
    this.cache = this.table('CacheTable', CACHE);
    this.events = this.table('EventsTable', EVENTS);
    this.jobs = this.table('JobsTable', JOBS);
    acknowledge(this.jobs, 'AwsSolutions-DDB3', "Jobs and their inputs live 8 days at most (TTL); no money is kept here (the ledger is the accounts table's, which has point-in-time recovery).");
    acknowledge(this.cache, 'AwsSolutions-DDB3', 'The cache holds only re-scrapable results (30-day TTL); the accounts table, which holds money, has point-in-time recovery.');
    // Every stored key and session hash depends on it: replacing it would refuse every key.
    this.keyPepper = generatedSecret(this, 'KeyPepper', {
      description: 'HMAC key of the stored API-key and session hashes (KEY_PEPPER_SECRET_ARN)',
      length: 64,
      removalPolicy: RemovalPolicy.RETAIN,
      whyNotRotated: 'The pepper of the stored API-key and session hashes: a new one would refuse every key issued under the old one, so it is never rotated on a schedule (keys are revoked and re-issued instead).',
      ...(this.dataKey ? { encryptionKey: this.dataKey } : {}),
    });
  }

  /**
   * A table from its definition. Accounts hold money (teams, balances, the ledger) and events the
   * customers' monitors and webhook endpoints: retained with the stack and point-in-time
   * recoverable. The cache can always be scraped again.
   */
  private table(id: string, def: TableDef): dynamodb.Table {
    const S = dynamodb.AttributeType.STRING;
    const table = new dynamodb.Table(this, id, {
      partitionKey: { name: def.partitionKey, type: S },
      ...(def.sortKey ? { sortKey: { name: def.sortKey, type: S } } : {}),
      ...(def.ttlAttribute ? { timeToLiveAttribute: def.ttlAttribute } : {}),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      ...(def.retain ? { pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true } } : {}),
      removalPolicy: def.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      // Money, or the customers' configuration: a stray `cdk destroy` or console click cannot delete it.
      deletionProtection: def.retain,
      ...(this.dataKey ? { encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED, encryptionKey: this.dataKey } : {}),
    });
    for (const index of def.indexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: S },
        sortKey: { name: index.sortKey, type: S },
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }
    return table;
  }
}
