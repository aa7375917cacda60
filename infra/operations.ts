import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib/core';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { handlerFile, routedOperations, type Operation } from '../shared/operations';
import { DEFAULT_SCRAPE_DEADLINE_MS } from '../shared/runtime/config';
import { KEY_PEPPER_VARIABLE, PROXY_SECRET_VARIABLE } from '../shared/runtime/secrets';
import { AUTHORIZER_KEY_ATTRIBUTES, KEY_PREFIX, TEAM_PREFIX, allowAttributeUpdates, allowItems, allowOperation, withSecret, type OperationAccess } from './iam';
import { nodeFunction } from './node-function';
import { StackPart } from './part';
import { generatedSecret } from './secrets';
import type { Settings } from './settings';

/** The data every part reads (infra/data.ts). */
export interface DataResources {
  accounts: dynamodb.Table;
  cache: dynamodb.Table;
  /** The event engine's table (monitors, their state, events, deliveries). */
  events: dynamodb.Table;
  /** The bulk jobs' table (jobs, their inputs, the teams' delivery external IDs). */
  jobs: dynamodb.Table;
  dataKey?: kms.IKey;
  keyPepper: secretsmanager.ISecret;
}

export interface OperationsProps extends Pick<Settings, 'scraperProxy' | 'shortvideoSignerUrl' | 'citygame'> {
  api: apigateway.RestApi;
  data: DataResources;
  /** What every function of the service has (tables, service name, outcome shards). */
  environment: Record<string, string>;
}

/** API Gateway gives up on an integration at 29 s; the function must answer first. */
export const FUNCTION_TIMEOUT = Duration.seconds(28);
/** The authorizer reads the key (and the balance; the key again when that batch shows no key item), with at most one transaction beside, then at most one UpdateItem; a stuck one should fail fast (503). */
const AUTHORIZER_TIMEOUT = Duration.seconds(10);
/**
 * Lambda's CPU share grows with memory. Parsing a whole HTML page with linkedom is CPU-bound
 * (and the DOM of a large page takes tens of MB), so those functions get 1024 MB; the JSON-API
 * scrapers spend their time waiting on the network and 512 MB gives them a fast enough cold start.
 */
const memoryFor = (op: Operation) => (op.parsesHtml ? 1024 : 512);

/** The logical id of an operation's function: `microblog-a-user-posts` -> `MicroblogAUserPosts`. */
export const functionId = (op: Operation) =>
  op.id
    .split(/[^a-zA-Z0-9]+/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');

/**
 * The operations: one function per routed operation of the operation table (shared/operations.ts),
 * each on GET <its path> behind the REQUEST authorizer and the usage plan, with the scrape's
 * settings and secrets (the cursor key, generated once per deployment; the scraper proxy).
 */
export class Operations extends StackPart {
  readonly functions: { op: Operation; fn: NodejsFunction }[];
  readonly authorizer: apigateway.RequestAuthorizer;
  /** The environment a function running every operation needs (the MCP one, the canaries). */
  readonly everyOperation: Record<string, string>;
  /** What running an operation touches, for every function that runs one (infra/iam.ts allowOperation). */
  readonly access: OperationAccess;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const { data } = props;
    const authorizerFn = this.authorizerFunction(props);
    const cursorSecret = generatedSecret(this, 'CursorSecret', {
      description: 'HMAC key of the opaque cursors the API issues (CURSOR_SECRET)',
      length: 48,
      removalPolicy: RemovalPolicy.DESTROY,
      whyNotRotated: 'HMAC key of pagination cursors that live minutes: replacing it only turns outstanding cursors into 400s, so it is replaced by redeploying, not on a rotation schedule.',
      ...(data.dataKey ? { encryptionKey: data.dataKey } : {}),
    });
    const proxy = this.scraperProxy(props.scraperProxy);
    this.access = { accounts: data.accounts, events: data.events, cache: data.cache, cursorSecret, ...(proxy.secretArn ? { proxySecretArn: proxy.secretArn } : {}), ...(data.dataKey ? { dataKey: data.dataKey } : {}) };
    const signerUrl = props.shortvideoSignerUrl;
    const operationEnvironment: Record<string, string> = {
      ...props.environment,
      // The scrape (retries included) ends by then, which leaves 8 s to refund the credit and answer.
      SCRAPE_DEADLINE_MS: String(DEFAULT_SCRAPE_DEADLINE_MS),
      ...proxy.environment,
      // Where the secrets are, never their values: shared/runtime/secrets.ts reads them at cold start.
      CURSOR_SECRET_ARN: cursorSecret.secretArn,
    };
    this.functions = routedOperations().map((op) => {
      const fn = nodeFunction(this, functionId(op), handlerFile(op), {
        description: `${op.number}. GET ${op.path}`,
        memorySize: memoryFor(op),
        timeout: FUNCTION_TIMEOUT,
        environment: {
          ...operationEnvironment,
          ...(signerUrl && op.platform === 'shortvideo' ? { SHORTVIDEO_SIGNER_URL: signerUrl } : {}),
          ...(op.platform === 'citygame' ? props.citygame : {}),
        },
      });
      allowOperation(fn, this.access);
      return { op, fn };
    });
    this.everyOperation = { ...operationEnvironment, ...(signerUrl ? { SHORTVIDEO_SIGNER_URL: signerUrl } : {}), ...props.citygame };

    this.authorizer = new apigateway.RequestAuthorizer(this, 'KeyAuthorizer', {
      handler: authorizerFn,
      // No identity source and no cache: with a source listed, API Gateway answers 401 itself when
      // that header is absent, and the key may come as x-api-key or as Authorization: Bearer.
      identitySources: [],
      resultsCacheTtl: Duration.seconds(0),
    });
    // CDK writes IdentitySource: "" for an empty list; leave the property out instead, which is
    // the documented form of "no identity source" when caching is off.
    (this.authorizer.node.defaultChild as apigateway.CfnAuthorizer).addPropertyDeletionOverride('IdentitySource');

    // GET <operation path> -> its function, behind the key authorizer and the usage plan.
    for (const { op, fn } of this.functions) {
      props.api.root.resourceForPath(op.path).addMethod('GET', new apigateway.LambdaIntegration(fn, { proxy: true, allowTestInvoke: false }), {
        authorizer: this.authorizer,
        authorizationType: apigateway.AuthorizationType.CUSTOM,
        apiKeyRequired: true,
      });
    }
  }

  /**
   * The REQUEST authorizer only reads: the key (GetItem) or, for a key it authorized before, the key
   * and its team's balance in one BatchGetItem (shared/auth/keys.ts, findKnownKey; GetItem again
   * when the batch shows no key item), in key and team partitions only (for a batch, IAM's
   * dynamodb:LeadingKeys holds every key it asks). Its one write is the key's `lastUsedAt`, at most
   * once a minute (touchKey): an UpdateItem on key items naming that attribute alone (IAM's
   * dynamodb:Attributes allow-list, AUTHORIZER_KEY_ATTRIBUTES). Nothing on the cache table, no write
   * in a team partition: it can change no balance, no ledger, no usage and no history.
   */
  private authorizerFunction({ data, environment }: OperationsProps): NodejsFunction {
    const fn = nodeFunction(this, 'Authorizer', 'functions/authorizer.ts', {
      description: 'REQUEST authorizer: API key -> team usage-plan key',
      memorySize: 512,
      timeout: AUTHORIZER_TIMEOUT,
      environment,
    });
    allowItems(fn, data.accounts, ['dynamodb:GetItem', 'dynamodb:BatchGetItem'], [KEY_PREFIX, TEAM_PREFIX]);
    allowAttributeUpdates(fn, data.accounts, KEY_PREFIX, AUTHORIZER_KEY_ATTRIBUTES);
    withSecret(fn, KEY_PEPPER_VARIABLE, data.keyPepper);
    return fn;
  }

  /**
   * The scraper proxy. scraperProxySecretArn names a Secrets Manager secret the deployer created,
   * holding the URL: the functions get its ARN (or name) and read it at cold start with the one
   * secrets client they already load for the cursor key (shared/runtime/secrets.ts), so the URL and
   * its credentials are never in the template or the function configuration. A name is granted as
   * the ARN pattern of that name (Secrets Manager appends six random characters). scraperProxyUrl is
   * a plain URL in the configuration, for a proxy without credentials only (settings.ts refuses one with them).
   */
  private scraperProxy(given: Settings['scraperProxy']): { environment: Record<string, string>; secretArn?: string } {
    if (!given) return { environment: {} };
    if ('url' in given) return { environment: { SCRAPER_PROXY_URL: given.url } };
    const { secret } = given;
    return {
      environment: { [PROXY_SECRET_VARIABLE]: secret },
      secretArn: secret.startsWith('arn:')
        ? secret
        : Stack.of(this).formatArn({ service: 'secretsmanager', resource: 'secret', resourceName: `${secret}-??????`, arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
    };
  }
}
