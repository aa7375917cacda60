import { Duration } from 'aws-cdk-lib/core';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import { ACCOUNT_ROUTES, DASHBOARD_PATH } from '../shared/api/account-routes';
import { KEY_PEPPER_VARIABLE } from '../shared/runtime/secrets';
import { acknowledge } from './acknowledge';
import { ACCOUNT_OWN_PREFIXES, TEAM_PREFIX, allowCursorSecret, allowItems, allowTeamIndexQuery, withSecret, type OperationAccess } from './iam';
import { nodeFunction } from './node-function';
import type { DataResources } from './operations';
import { StackPart } from './part';

export interface AccountProps {
  api: apigateway.RestApi;
  data: DataResources;
  /** What every function of the service has. */
  environment: Record<string, string>;
  /** The cursor secret (infra/operations.ts access): the account API issues the request history's cursors, sealed with the same secret. */
  cursors: Pick<OperationAccess, 'cursorSecret' | 'dataKey'>;
  /** The origin browsers see the dashboard at, when it is not the API's own host. */
  dashboardOrigin?: string;
}

/** The method request parameter the dashboard's assets are cached by. */
const DASHBOARD_CACHE_KEY = 'method.request.path.proxy';

/**
 * The account dashboard: its JSON API (one function for every /v1/account/* route) and the
 * single-page app (one function serving the page and its bundled assets). Neither route has the
 * API-key authorizer: the account API's credential is the session cookie, or for its three reads
 * (credits, usage, requests) an API key, both checked by the function; the pages are public like
 * any sign-in page.
 */
export class Account extends StackPart {
  /** The function serving the single-page app (its Content-Security-Policy names the jobs' bucket: stack.ts). */
  readonly dashboardFn: NodejsFunction;

  constructor(scope: Construct, id: string, props: AccountProps) {
    super(scope, id);
    const { api, data } = props;
    const accountFn = nodeFunction(this, 'Account', 'functions/account.ts', {
      description: 'The dashboard account API: /v1/account/* (session cookie; API key for the reads)',
      // scrypt (32 MiB, CPU-bound) on sign-in and set-password: 1024 MB gives it most of a vCPU.
      memorySize: 1024,
      timeout: Duration.seconds(10),
      environment: { ...props.environment, CURSOR_SECRET_ARN: props.cursors.cursorSecret.secretArn, ...(props.dashboardOrigin ? { DASHBOARD_ORIGIN: props.dashboardOrigin } : {}) },
    });
    // Members, invitations, sessions, sign-in throttles and keys are items; the ledger and the
    // usage counters are read with Query on the team's partition; keys and members are listed
    // through the byTeam index. No DeleteItem: sign-out marks the session ended.
    // Its own items only: it writes keys, members, invitations, sessions and sign-in throttles, and
    // reads those and the team partitions (team, ledger, usage); it never writes a team item, so it
    // cannot change a balance.
    allowItems(accountFn, data.accounts, ['dynamodb:GetItem', 'dynamodb:Query'], [TEAM_PREFIX, ...ACCOUNT_OWN_PREFIXES]);
    allowItems(accountFn, data.accounts, ['dynamodb:PutItem', 'dynamodb:UpdateItem'], ACCOUNT_OWN_PREFIXES);
    allowTeamIndexQuery(accountFn, data.accounts);
    // Eager pause (shared/monitors/owner.ts): a revocation or a removal pauses the monitors its owner
    // created, with their monitor.paused events, in the same transaction (and the change's own team event:
    // key.revoked, member.removed, key.created, shared/webhooks/events.ts): the team's monitors read,
    // those monitors updated and their events put, in team partitions of the events table; no DeleteItem.
    allowItems(accountFn, data.events, ['dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:PutItem'], [TEAM_PREFIX]);
    withSecret(accountFn, KEY_PEPPER_VARIABLE, data.keyPepper);
    allowCursorSecret(accountFn, props.cursors);

    const dashboardFn = (this.dashboardFn = nodeFunction(
      this,
      'Dashboard',
      'functions/dashboard.ts',
      { description: `GET ${DASHBOARD_PATH}: the dashboard single-page app`, memorySize: 256, timeout: Duration.seconds(5), environment: { NODE_OPTIONS: '--enable-source-maps' } },
      {
        // esbuild bundles the app (dashboard/build.ts) next to the function's own bundle.
        beforeBundling: () => [],
        beforeInstall: () => [],
        afterBundling: (inputDir: string, outputDir: string) => [`"${inputDir}/node_modules/.bin/tsx" "${inputDir}/dashboard/build.ts" "${outputDir}/dashboard"`],
      },
    ));

    const open = { authorizationType: apigateway.AuthorizationType.NONE, apiKeyRequired: false };
    // One invoke permission for the function's every route (scoped to this API), not one per method: the resource budget.
    const accountIntegration = new apigateway.LambdaIntegration(accountFn, { proxy: true, scopePermissionToMethod: false });
    for (const route of ACCOUNT_ROUTES) {
      const method = api.root.resourceForPath(route.path).addMethod(route.method, accountIntegration, open);
      acknowledge(method, 'AwsSolutions-APIG4', "Authorised by the dashboard session (HttpOnly cookie) or, for the three account reads, an API key, checked by the function for the caller's own team; sign-in and set-password must be reachable without one.");
    }
    const dashboardIntegration = new apigateway.LambdaIntegration(dashboardFn, { proxy: true, allowTestInvoke: false });
    // Cached per asset: the proxy path is the cache key (without it every asset would share one entry).
    const assetIntegration = new apigateway.LambdaIntegration(dashboardFn, { proxy: true, allowTestInvoke: false, cacheKeyParameters: [DASHBOARD_CACHE_KEY] });
    const pages = api.root.resourceForPath(DASHBOARD_PATH);
    const pageMethods = [
      pages.addMethod('GET', dashboardIntegration, open),
      pages.addResource('{proxy+}').addMethod('GET', assetIntegration, { ...open, requestParameters: { [DASHBOARD_CACHE_KEY]: true } }),
    ];
    for (const m of pageMethods) acknowledge(m, 'AwsSolutions-APIG4', 'The static assets of the dashboard page: no data; every data call the page makes goes to the session-authorised account API.');
  }
}
