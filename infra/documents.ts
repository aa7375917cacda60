import { Duration } from 'aws-cdk-lib/core';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import { LLMS_PATH, MCP_METHODS, MCP_PATH } from '../shared/api/agent-routes';
import { OPENAPI_ROUTE } from '../shared/public/openapi-document';
import { REFERENCE_PATH } from '../shared/public/reference-page';
import { acknowledge } from './acknowledge';
import { TEAM_PREFIX, allowItems, allowKeyNamesQuery, allowOperation, type OperationAccess } from './iam';
import { nodeFunction } from './node-function';
import { FUNCTION_TIMEOUT } from './operations';
import { StackPart } from './part';

export interface PublicDocumentsProps {
  api: apigateway.RestApi;
  /** The operations' REQUEST authorizer: the MCP server is behind it too. */
  authorizer: apigateway.IAuthorizer;
  /** The environment of a function that runs every operation (infra/operations.ts everyOperation). */
  operationEnvironment: Record<string, string>;
  /** What running an operation touches (infra/operations.ts access). */
  operationAccess: OperationAccess;
  /** The API's public address, for the links of /llms.txt. */
  publicUrl: string;
}

/** The method request parameter the reference page's assets are cached by. */
const REFERENCE_CACHE_KEY = 'method.request.path.proxy';

/**
 * The API described, for people and for agents: GET the OpenAPI document, GET /docs (the API
 * reference page, rendered from it) and GET /llms.txt, public like any API description (no key, no
 * credits, no table), and the MCP server (POST /mcp; GET and
 * DELETE answer 405), behind the same authorizer and usage plan as the operations.
 *
 * The MCP function runs every operation's handler in process (functions/mcp.ts), so it has what they
 * have: their environment, their memory (some parse HTML), their timeout and their table access,
 * plus Query on the accounts table's team partitions for the read-only account tools (latest
 * charges, daily usage, request history) and, through its byTeam index, on key ids and names only
 * (the history's key names): never a member, password hash or session the index also holds.
 */
export class PublicDocuments extends StackPart {
  readonly mcp: NodejsFunction;

  constructor(scope: Construct, id: string, private readonly props: PublicDocumentsProps) {
    super(scope, id);
    // Its servers: this deployment (PUBLIC_BASE_URL), so a generated client and the reference's "Try" call it.
    this.publicDocument('OpenApi', 'functions/openapi.ts', OPENAPI_ROUTE, `GET ${OPENAPI_ROUTE}: the OpenAPI 3.1 document`, 'The public description of the API (OpenAPI): no data, no credits, like any published API document.', {
      PUBLIC_BASE_URL: props.publicUrl,
    });
    this.referencePage();

    this.mcp = nodeFunction(this, 'Mcp', 'functions/mcp.ts', {
      description: `${MCP_METHODS.join('/')} ${MCP_PATH}: the MCP server (Streamable HTTP, stateless), a tool per operation`,
      memorySize: 1024,
      timeout: FUNCTION_TIMEOUT,
      environment: props.operationEnvironment,
    });
    const { accounts } = props.operationAccess;
    allowOperation(this.mcp, props.operationAccess);
    allowItems(this.mcp, accounts, ['dynamodb:Query'], [TEAM_PREFIX]);
    // account-requests names each request's key: through the byTeam index, but only keyId and name
    // (never a member's e-mail or password hash, a session, or anything else the index holds).
    allowKeyNamesQuery(this.mcp, accounts);
    const mcpIntegration = new apigateway.LambdaIntegration(this.mcp, { proxy: true, allowTestInvoke: false });
    const mcp = props.api.root.resourceForPath(MCP_PATH);
    for (const method of MCP_METHODS) {
      mcp.addMethod(method, mcpIntegration, { authorizer: props.authorizer, authorizationType: apigateway.AuthorizationType.CUSTOM, apiKeyRequired: true });
    }

    // Its links (the MCP URL agents send keys to among them) come from configuration, never from the request's Host.
    this.publicDocument('LlmsTxt', 'functions/llms.ts', LLMS_PATH, `GET ${LLMS_PATH}: the operations, their parameters and the MCP URL, for agents`, 'The public description of the API for agents (llms.txt): no data, no credits, like the OpenAPI document.', {
      PUBLIC_BASE_URL: props.publicUrl,
    });
  }

  /**
   * GET /docs and GET /docs/{proxy+}: the API reference page, built (reference/build.ts) next to its
   * function's bundle as the dashboard's is, each asset its own entry of the gateway's cache (the
   * proxy path is the cache key; infra/edge.ts, route group `reference`).
   */
  private referencePage() {
    const fn = nodeFunction(
      this,
      'ApiReference',
      'functions/reference.ts',
      { description: `GET ${REFERENCE_PATH}: the API reference page (RapiDoc over the OpenAPI document)`, memorySize: 256, timeout: Duration.seconds(5), environment: { NODE_OPTIONS: '--enable-source-maps' } },
      {
        beforeBundling: () => [],
        beforeInstall: () => [],
        afterBundling: (inputDir: string, outputDir: string) => [`"${inputDir}/node_modules/.bin/tsx" "${inputDir}/reference/build.ts" "${outputDir}/reference"`],
      },
    );
    const open = { authorizationType: apigateway.AuthorizationType.NONE, apiKeyRequired: false };
    const page = this.props.api.root.resourceForPath(REFERENCE_PATH);
    const methods = [
      page.addMethod('GET', new apigateway.LambdaIntegration(fn, { proxy: true, allowTestInvoke: false }), open),
      page.addResource('{proxy+}').addMethod('GET', new apigateway.LambdaIntegration(fn, { proxy: true, allowTestInvoke: false, cacheKeyParameters: [REFERENCE_CACHE_KEY] }), {
        ...open,
        requestParameters: { [REFERENCE_CACHE_KEY]: true },
      }),
    ];
    for (const m of methods) acknowledge(m, 'AwsSolutions-APIG4', 'The API reference page and its static assets: no data; its "Try" calls go to the key-authorised operations with the reader\'s own key.');
  }

  /** GET `route` without a key, on a small function that reads no table: a description of the API. */
  private publicDocument(id: string, entry: string, route: string, description: string, whyPublic: string, environment: Record<string, string> = {}) {
    const fn = nodeFunction(this, id, entry, { description, memorySize: 256, timeout: Duration.seconds(5), environment: { NODE_OPTIONS: '--enable-source-maps', ...environment } });
    const method = this.props.api.root.resourceForPath(route).addMethod('GET', new apigateway.LambdaIntegration(fn, { proxy: true, allowTestInvoke: false }), {
      authorizationType: apigateway.AuthorizationType.NONE,
      apiKeyRequired: false,
    });
    acknowledge(method, 'AwsSolutions-APIG4', whyPublic);
  }
}
