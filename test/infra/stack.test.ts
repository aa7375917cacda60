import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { SocialDataApiStack, TEAM_BURST_LIMIT, TEAM_RATE_LIMIT } from '../../infra/stack';
import { ACCOUNTS, CACHE , TEAM_INDEX } from '../../shared/db/tables';
import { ACCOUNT_ROUTES } from '../../shared/account/routes';
import { LLMS_PATH, MCP_METHODS, MCP_PATH } from '../../shared/mcp/routes';
import { routedOperations } from '../../shared/operations';

type Resource = { Type: string; Properties: Record<string, any> };

/** The app as `cdk synth` builds it (cdk.json's context and feature flags), minus esbuild bundling. */
function synth(extraContext: Record<string, unknown> = {}) {
  const cdkJson = JSON.parse(readFileSync(path.join(__dirname, '../../cdk.json'), 'utf8'));
  const app = new App({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [], ...extraContext } });
  const stack = new SocialDataApiStack(app, 'SocialDataApi');
  return Template.fromStack(stack);
}

const template = synth();
const resources = template.toJSON().Resources as Record<string, Resource>;
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const routed = routedOperations();

/** Full path of every API Gateway resource, by walking PathPart/ParentId up to the root. */
function resourcePaths(): Map<string, string> {
  const out = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = out.get(id);
    if (known) return known;
    const { PathPart, ParentId } = resources[id]!.Properties;
    const parent = ParentId.Ref ? pathOf(ParentId.Ref) : '';
    const full = `${parent}/${PathPart}`;
    out.set(id, full);
    return full;
  };
  for (const [id] of ofType('AWS::ApiGateway::Resource')) pathOf(id);
  return out;
}

function functionByDescription(text: string): Resource {
  const found = ofType('AWS::Lambda::Function').filter(([, r]) => String(r.Properties.Description).includes(text));
  expect(found).toHaveLength(1);
  return found[0]![1];
}

/** Policy statements attached to the role of a function. */
function statementsOf(fn: Resource): { Action: string | string[]; Resource: unknown }[] {
  const roleId = fn.Properties.Role['Fn::GetAtt'][0];
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === roleId))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
}
const actionsOf = (s: { Action: string | string[] }) => (Array.isArray(s.Action) ? s.Action : [s.Action]);
const tableId = (logicalPrefix: string) => ofType('AWS::DynamoDB::Table').find(([id]) => id.startsWith(logicalPrefix))![0];

describe('functions', () => {
  it('one function per routed operation plus the authorizer, the OpenAPI document, the account API, the dashboard, MCP, llms.txt, the status document and the canaries, all nodejs22.x on arm64', () => {
    const fns = ofType('AWS::Lambda::Function');
    expect(fns).toHaveLength(routed.length + 8);
    for (const [, fn] of fns) {
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS).toBe('--enable-source-maps');
    }
  });

  it('sizes each operation function by whether it parses HTML, with a timeout under the gateway limit', () => {
    for (const op of routed) {
      const fn = functionByDescription(`GET ${op.path}`);
      expect(fn.Properties.MemorySize).toBe(op.parsesHtml ? 1024 : 512);
      expect(fn.Properties.Timeout).toBe(28);
      expect(Number(fn.Properties.Environment.Variables.SCRAPE_DEADLINE_MS)).toBeLessThan(28_000);
      expect(fn.Properties.Environment.Variables).toMatchObject({ ACCOUNTS_TABLE: { Ref: tableId('AccountsTable') }, CACHE_TABLE: { Ref: tableId('CacheTable') } });
    }
  });

  it('gives every function its own log group with one month of retention', () => {
    const groups = new Map(ofType('AWS::Logs::LogGroup'));
    for (const [, fn] of ofType('AWS::Lambda::Function')) {
      const group = groups.get(fn.Properties.LoggingConfig?.LogGroup?.Ref);
      expect(group?.Properties.RetentionInDays).toBe(30);
    }
    template.resourceCountIs('Custom::LogRetention', 0);
  });

  it('gives every operation function a CURSOR_SECRET generated per deployment, as a deploy-time reference (never the value)', () => {
    const secrets = ofType('AWS::SecretsManager::Secret');
    expect(secrets).toHaveLength(1);
    const [secretId, secret] = secrets[0]!;
    expect(secret.Properties.GenerateSecretString).toMatchObject({ PasswordLength: 48, ExcludePunctuation: true });
    for (const op of routed) {
      const env = JSON.stringify(functionByDescription(`GET ${op.path}`).Properties.Environment.Variables.CURSOR_SECRET);
      expect(env).toContain('{{resolve:secretsmanager:');
      expect(env).toContain(secretId);
    }
  });

  it('passes SHORTVIDEO_SIGNER_URL from context to the shortvideo functions only', () => {
    const t = synth({ shortvideoSignerUrl: 'http://signer.internal:8080/signature' }).toJSON();
    const fns = Object.values(t.Resources as Record<string, Resource>).filter((r) => r.Type === 'AWS::Lambda::Function' && String(r.Properties.Description).includes('GET /v1/'));
    for (const fn of fns) {
      const expected = String(fn.Properties.Description).includes('/v1/shortvideo/') ? 'http://signer.internal:8080/signature' : undefined;
      expect(fn.Properties.Environment.Variables.SHORTVIDEO_SIGNER_URL).toBe(expected);
    }
    expect(fns.some((fn) => fn.Properties.Environment.Variables.SHORTVIDEO_SIGNER_URL)).toBe(true);
  });

  it('passes a proxy URL from context, or a deploy-time SSM reference instead of the value', () => {
    const plain = synth({ scraperProxyUrl: 'http://proxy.internal:3128' });
    plain.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('GET /v1/'),
      Environment: { Variables: Match.objectLike({ SCRAPER_PROXY_URL: 'http://proxy.internal:3128' }) },
    });
    const fromSsm = synth({ scraperProxyParameter: '/social-data/proxy-url' }).toJSON();
    const envs = Object.values(fromSsm.Resources as Record<string, Resource>)
      .filter((r) => r.Type === 'AWS::Lambda::Function' && /^\d+\. GET \/v1\//.test(String(r.Properties.Description)))
      .map((r) => r.Properties.Environment.Variables.SCRAPER_PROXY_URL);
    expect(envs.length).toBe(routed.length);
    for (const env of envs) expect(JSON.stringify(env)).toContain('Ref'); // a CloudFormation parameter, not a literal
    expect(JSON.stringify(fromSsm.Parameters)).toContain('/social-data/proxy-url');
  });
});

describe('least-privilege IAM', () => {
  const accounts = { 'Fn::GetAtt': [tableId('AccountsTable'), 'Arn'] };
  const cache = { 'Fn::GetAtt': [tableId('CacheTable'), 'Arn'] };

  it('grants no wildcard, Scan, DeleteItem, Batch action (but the status document\'s BatchGetItem on the cache) or table action anywhere, and Query only to the account API and the MCP account tools', () => {
    const readers = [functionByDescription('dashboard account API'), functionByDescription('the MCP server')].map((fn) => fn.Properties.Role['Fn::GetAtt'][0]);
    const statusRole = functionByDescription('GET /v1/status').Properties.Role['Fn::GetAtt'][0];
    const policies = ofType('AWS::IAM::Policy');
    const all = policies.filter(([, p]) => !p.Properties.Roles.some((r: { Ref: string }) => r.Ref === statusRole)).flatMap(([, p]) => p.Properties.PolicyDocument.Statement.flatMap(actionsOf));
    expect(all.length).toBeGreaterThan(0);
    for (const action of all) {
      expect(action).not.toMatch(/\*|Scan|DeleteItem|Batch|DeleteTable|CreateTable|UpdateTable/);
    }
    // The status document reads its counter items by key, 100 at a time, from the cache table only.
    expect(statementsOf(functionByDescription('GET /v1/status'))).toEqual([{ Effect: 'Allow', Action: ['dynamodb:BatchGetItem', 'dynamodb:GetItem'], Resource: cache }]);
    const others = policies.filter(([, p]) => !p.Properties.Roles.some((r: { Ref: string }) => readers.includes(r.Ref)));
    expect(others.flatMap(([, p]) => p.Properties.PolicyDocument.Statement.flatMap(actionsOf))).not.toContain('dynamodb:Query');
  });

  it('lets the authorizer read and touch keys in the accounts table only', () => {
    const stmts = statementsOf(functionByDescription('REQUEST authorizer'));
    expect(stmts.map((s) => s.Resource)).toEqual([accounts]);
    expect(stmts.flatMap(actionsOf).sort()).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
  });

  it('lets operation functions get/update/put accounts items (the settle transaction), and get/put cache entries and lease/put shared credentials', () => {
    for (const op of routed) {
      const stmts = statementsOf(functionByDescription(`GET ${op.path}`));
      // CDK merges statements with the same actions into one listing both tables.
      const resources = (st: { Resource: unknown }) => [st.Resource].flat().map((r) => JSON.stringify(r));
      const byTable = (arn: unknown) => stmts.filter((st) => resources(st).includes(JSON.stringify(arn))).flatMap(actionsOf).sort();
      expect(byTable(accounts)).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
      expect(byTable(cache)).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
      expect(new Set(stmts.flatMap(resources))).toEqual(new Set([JSON.stringify(accounts), JSON.stringify(cache)]));
    }
  });
});

describe('dashboard functions', () => {
  const accounts = { 'Fn::GetAtt': [tableId('AccountsTable'), 'Arn'] };

  it('the account API: items of the accounts table, Query on its partition and the byTeam index; nothing on the cache', () => {
    const stmts = statementsOf(functionByDescription('dashboard account API'));
    expect(stmts).toHaveLength(2);
    expect(stmts[0]).toMatchObject({ Resource: accounts });
    expect(actionsOf(stmts[0]!).sort()).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
    expect(JSON.stringify(stmts[1]!.Resource)).toContain(`/index/${TEAM_INDEX.name}`);
    expect(actionsOf(stmts[1]!)).toEqual(['dynamodb:Query']);
  });

  it('the dashboard pages: no table access at all', () => {
    expect(statementsOf(functionByDescription('dashboard single-page app'))).toEqual([]);
  });
});

describe('REST API', () => {
  const paths = resourcePaths();
  const methods = ofType('AWS::ApiGateway::Method').map(([, m]) => ({ path: paths.get(m.Properties.ResourceId.Ref)!, verb: m.Properties.HttpMethod as string, props: m.Properties }));
  const isData = (path: string) => routed.some((op) => op.path === path) || path === MCP_PATH;

  it('routes the routed operations (GET), the OpenAPI document, the status document, the account API, the dashboard pages, MCP and llms.txt, nothing else', () => {
    expect(methods.map((m) => `${m.verb} ${m.path}`).sort()).toEqual(
      [
        ...routed.map((op) => `GET ${op.path}`),
        'GET /v1/openapi.json',
        'GET /v1/status',
        ...ACCOUNT_ROUTES.map((r) => `${r.method} ${r.path}`),
        'GET /dashboard',
        'GET /dashboard/{proxy+}',
        ...MCP_METHODS.map((m) => `${m} ${MCP_PATH}`),
        `GET ${LLMS_PATH}`,
      ].sort(),
    );
  });

  it('requires an API key and the authorizer on every data method and on MCP, with a Lambda proxy integration', () => {
    const [authorizerId] = ofType('AWS::ApiGateway::Authorizer')[0]!;
    for (const m of methods.filter((x) => isData(x.path))) {
      expect(m.props.ApiKeyRequired).toBe(true);
      expect(m.props.AuthorizationType).toBe('CUSTOM');
      expect(m.props.AuthorizerId).toEqual({ Ref: authorizerId });
      expect(m.props.Integration.Type).toBe('AWS_PROXY');
    }
  });

  it('leaves the API-key authorizer off the OpenAPI document, llms.txt, the status document, the account API (session cookie) and the dashboard', () => {
    const open = methods.filter((x) => !isData(x.path));
    expect(open).toHaveLength(3 + ACCOUNT_ROUTES.length + 2);
    for (const m of open) {
      expect(m.props.ApiKeyRequired).toBe(false);
      expect(m.props.AuthorizationType).toBe('NONE');
      expect(m.props.AuthorizerId).toBeUndefined();
      expect(m.props.Integration.Type).toBe('AWS_PROXY');
    }
  });

  it('runs the authorizer on every request: no identity source, no result cache', () => {
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      AuthorizerResultTtlInSeconds: 0,
      IdentitySource: Match.absent(),
    });
  });

  it('takes the usage-plan key from the authorizer', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
  });

  it('throttles each team at 100 requests per 60 seconds with a burst of 100 on the deployed stage', () => {
    expect(TEAM_RATE_LIMIT * 60).toBeCloseTo(100);
    const [stageId] = ofType('AWS::ApiGateway::Stage')[0]!;
    template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      Throttle: { RateLimit: TEAM_RATE_LIMIT, BurstLimit: TEAM_BURST_LIMIT },
      ApiStages: [Match.objectLike({ Stage: { Ref: stageId } })],
    });
    expect(TEAM_BURST_LIMIT).toBe(100);
  });

  it('outputs the API URL and the usage plan id', () => {
    const outputs = template.toJSON().Outputs;
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['ApiUrl', 'UsagePlanId', 'AccountsTableName', 'CacheTableName']));
    expect(outputs.UsagePlanId.Value).toEqual({ Ref: ofType('AWS::ApiGateway::UsagePlan')[0]![0] });
  });
});

describe('gateway responses in the error envelope', () => {
  const response = (type: string) => {
    const found = ofType('AWS::ApiGateway::GatewayResponse').filter(([, r]) => r.Properties.ResponseType === type);
    expect(found).toHaveLength(1);
    const props = found[0]![1].Properties;
    const body = JSON.parse(props.ResponseTemplates['application/json']);
    return { status: props.StatusCode, headers: props.ResponseParameters as Record<string, string>, body };
  };

  it.each([
    ['UNAUTHORIZED', '401', 'UNAUTHORIZED'],
    ['ACCESS_DENIED', '401', 'UNAUTHORIZED'],
    ['INVALID_API_KEY', '401', 'UNAUTHORIZED'],
    ['MISSING_AUTHENTICATION_TOKEN', '404', 'NOT_FOUND'],
    ['RESOURCE_NOT_FOUND', '404', 'NOT_FOUND'],
    ['THROTTLED', '429', 'RATE_LIMITED'],
    ['QUOTA_EXCEEDED', '429', 'RATE_LIMITED'],
    ['AUTHORIZER_FAILURE', '503', 'SERVICE_UNAVAILABLE'],
    ['AUTHORIZER_CONFIGURATION_ERROR', '503', 'SERVICE_UNAVAILABLE'],
    ['DEFAULT_5XX', '503', 'SERVICE_UNAVAILABLE'],
    ['DEFAULT_4XX', '400', 'BAD_REQUEST'],
  ])('%s -> %s %s', (type, status, code) => {
    const r = response(type);
    expect(r.status).toBe(status);
    expect(r.body).toEqual({ error: { code, message: expect.any(String), requestId: '$context.requestId' } });
    expect(r.headers['gatewayresponse.header.x-request-id']).toBe('context.requestId');
    if (status === '429' || status === '503') expect(r.headers['gatewayresponse.header.retry-after']).toMatch(/^'[1-9]\d*'$/);
    else expect(r.headers['gatewayresponse.header.retry-after']).toBeUndefined();
  });

  it('throttling says to retry after one second', () => {
    expect(response('THROTTLED').headers['gatewayresponse.header.retry-after']).toBe("'1'");
  });
});

describe('tables', () => {
  it('accounts: pk/sk, team index with all attributes, on demand, point-in-time recovery, retained', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        KeySchema: [
          { AttributeName: ACCOUNTS.partitionKey, KeyType: 'HASH' },
          { AttributeName: ACCOUNTS.sortKey, KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        GlobalSecondaryIndexes: [
          {
            IndexName: TEAM_INDEX.name,
            KeySchema: [
              { AttributeName: TEAM_INDEX.partitionKey, KeyType: 'HASH' },
              { AttributeName: TEAM_INDEX.sortKey, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
      }),
    });
  });

  it('accounts: TTL on expiresAt (sessions, invitations, sign-in throttles, usage counters)', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: ACCOUNTS.partitionKey, KeyType: 'HASH' }, { AttributeName: ACCOUNTS.sortKey, KeyType: 'RANGE' }],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
  });

  it('cache: pk, TTL attribute, on demand', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: CACHE.partitionKey, KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: CACHE.ttlAttribute, Enabled: true },
    });
  });
});

describe('routes for agents', () => {
  const paths = resourcePaths();
  const methodsAt = (path: string) => ofType('AWS::ApiGateway::Method').filter(([, m]) => paths.get(m.Properties.ResourceId.Ref) === path).map(([, m]) => m.Properties);
  const mcp = functionByDescription('the MCP server');

  it('POST, GET and DELETE /mcp reach the MCP function through the authorizer, with an API key (so the usage plan counts them)', () => {
    const [authorizerId] = ofType('AWS::ApiGateway::Authorizer')[0]!;
    const [mcpId] = ofType('AWS::Lambda::Function').find(([, fn]) => fn === mcp)!;
    const methods = methodsAt(MCP_PATH);
    expect(methods.map((m) => m.HttpMethod).sort()).toEqual([...MCP_METHODS].sort());
    for (const m of methods) {
      expect(m).toMatchObject({ AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: authorizerId }, ApiKeyRequired: true });
      expect(m.Integration.Type).toBe('AWS_PROXY');
      expect(JSON.stringify(m.Integration.Uri)).toContain(mcpId);
    }
  });

  it('the MCP function runs the operations in process: their environment, memory and timeout; Query for the account tools, nothing else new', () => {
    const op = functionByDescription(`GET ${routed.find((o) => o.parsesHtml)!.path}`);
    expect(mcp.Properties.MemorySize).toBe(1024);
    expect(mcp.Properties.Timeout).toBe(op.Properties.Timeout);
    const env = mcp.Properties.Environment.Variables;
    expect(Object.keys(env).sort()).toEqual(Object.keys(op.Properties.Environment.Variables).sort());
    expect(env.CURSOR_SECRET).toEqual(op.Properties.Environment.Variables.CURSOR_SECRET);
    const stmts = statementsOf(mcp);
    // CDK merges statements with the same actions into one listing both tables.
    const resources = (st: { Resource: unknown }) => [st.Resource].flat().map((r) => JSON.stringify(r));
    const arn = (prefix: string) => JSON.stringify({ 'Fn::GetAtt': [tableId(prefix), 'Arn'] });
    const byTable = (prefix: string) => stmts.filter((st) => resources(st).includes(arn(prefix))).flatMap(actionsOf).sort();
    expect(byTable('AccountsTable')).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
    expect(byTable('CacheTable')).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
    expect(new Set(stmts.flatMap(resources))).toEqual(new Set([arn('AccountsTable'), arn('CacheTable')]));
  });

  it('GET /llms.txt is public and its function touches no table', () => {
    const [m] = methodsAt(LLMS_PATH);
    expect(m).toMatchObject({ HttpMethod: 'GET', AuthorizationType: 'NONE', ApiKeyRequired: false });
    expect(statementsOf(functionByDescription(`GET ${LLMS_PATH}`))).toEqual([]);
  });
});
