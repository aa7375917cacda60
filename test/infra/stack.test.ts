import { Match, Template } from 'aws-cdk-lib/assertions';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SocialDataApiStack, TEAM_BURST_LIMIT, TEAM_RATE_LIMIT } from '../../infra/stack';
import { ROUTE_GROUPS, edgeTable, groupOf, methodShare } from '../../infra/edge';
import { ACCOUNTS, CACHE, DUE_INDEX, EVENTS, TEAM_INDEX } from '../../shared/db/tables';
import { ACCOUNT_ROUTES } from '../../shared/api/account-routes';
import { MONITOR_ROUTES } from '../../shared/api/monitor-routes';
import { JOB_ROUTES } from '../../shared/api/job-routes';
import { WEBHOOK_ROUTES } from '../../shared/api/webhook-routes';
import { CREDIT_WATCH_ATTRIBUTES, TEAM_EVENT_ATTRIBUTES } from '../../infra/iam';
import { REFERENCE_HEADERS } from '../../shared/public/reference-page';
import { LLMS_PATH, MCP_METHODS, MCP_PATH } from '../../shared/api/agent-routes';
import { routedOperations } from '../../shared/operations';
import { nestedTemplate, nestedWiring, stackTemplate } from '../support/synth';

type Resource = { Type: string; Properties: Record<string, any> };

/** The app as `cdk synth` builds it (cdk.json's context and feature flags), minus esbuild bundling: once per context (test/support/synth.ts). */
const synth = stackTemplate;
const template = synth();
const resources = template.toJSON().Resources as Record<string, Resource>;
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const routed = routedOperations();
/** The jobs engine's nested stack (infra/jobs.ts), its parameters read as what the root passes (test/support/synth.ts); its own checks: test/infra/jobs.ts. */
const jobsWiring = nestedWiring('JobsEngine');
const nestedResources = jobsWiring.inRoot(nestedTemplate('JobsEngine').toJSON().Resources as Record<string, Resource>);
const nestedOfType = (type: string) => Object.entries(nestedResources).filter(([, r]) => r.Type === type);

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
function statementsOf(fn: Resource): { Action: string | string[]; Resource: unknown; Effect?: string; Condition?: Record<string, Record<string, unknown>> }[] {
  const roleId = fn.Properties.Role['Fn::GetAtt'][0];
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === roleId))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
}
const actionsOf = (s: { Action: string | string[] }) => (Array.isArray(s.Action) ? s.Action : [s.Action]);
/** The partition-key prefixes an IAM statement's dynamodb:LeadingKeys condition allows (undefined: no such condition). */
const leadingKeysOf = (s: { Condition?: Record<string, Record<string, unknown>> }) => {
  const v = s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
  return v === undefined ? undefined : [v].flat();
};
/** The attribute names an IAM statement's dynamodb:Attributes allow-list allows (undefined: no such condition). */
const attributesOf = (s: { Condition?: Record<string, Record<string, unknown>> }) => {
  const v = s.Condition?.['ForAllValues:StringLike']?.['dynamodb:Attributes'];
  return v === undefined ? undefined : ([v].flat() as string[]);
};
const tableId = (logicalPrefix: string) => ofType('AWS::DynamoDB::Table').find(([id]) => id.startsWith(logicalPrefix))![0];

describe('functions', () => {
  it('one function per routed operation plus the authorizer, the OpenAPI document, the account API, the dashboard, the API reference page, MCP, llms.txt, the status document, the canaries, the monitors\' four (API, tick, poll, delivery); the jobs\' two (API, input worker) in their nested stack; all nodejs22.x on arm64', () => {
    const fns = ofType('AWS::Lambda::Function');
    expect(fns).toHaveLength(routed.length + 9 + 4);
    const jobs = nestedOfType('AWS::Lambda::Function');
    expect(jobs.map(([, fn]) => String(fn.Properties.Description).split(':')[0]).sort()).toEqual(['Bulk jobs', 'The bulk jobs API']);
    for (const [, fn] of [...fns, ...jobs]) {
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

  it('gives every operation function a CURSOR_SECRET generated per deployment: its ARN in the environment, never the value (18.8)', () => {
    const secrets = ofType('AWS::SecretsManager::Secret').filter(([, s]) => String(s.Properties.Description).includes('CURSOR_SECRET'));
    expect(secrets).toHaveLength(1);
    const [secretId, secret] = secrets[0]!;
    expect(secret.Properties.GenerateSecretString).toMatchObject({ PasswordLength: 48, ExcludePunctuation: true });
    for (const op of routed) {
      const fn = functionByDescription(`GET ${op.path}`);
      const env = fn.Properties.Environment.Variables;
      expect(env.CURSOR_SECRET).toBeUndefined();
      expect(env.CURSOR_SECRET_ARN).toEqual({ Ref: secretId });
      expect(JSON.stringify(env)).not.toContain('{{resolve:');
      // Read at cold start: GetSecretValue on that one secret.
      expect(statementsOf(fn).filter((st) => actionsOf(st).includes('secretsmanager:GetSecretValue'))).toEqual([
        expect.objectContaining({ Action: 'secretsmanager:GetSecretValue', Resource: { Ref: secretId } }),
      ]);
    }
  });

  it('no function configuration holds a secret value or a dynamic reference to one, whatever the context (18.8)', () => {
    for (const ctx of [{}, { scraperProxySecretArn: 'social-data/proxy-url' }, { scraperProxyUrl: 'http://proxy.internal:3128' }, { kmsKey: true }]) {
      const t = synth(ctx).toJSON();
      for (const fn of Object.values(t.Resources as Record<string, Resource>).filter((r) => r.Type === 'AWS::Lambda::Function')) {
        const env = fn.Properties.Environment?.Variables ?? {};
        expect(Object.keys(env).filter((k) => k === 'CURSOR_SECRET' || k.startsWith('SCRAPER_PROXY_URL_'))).toEqual([]);
        expect(JSON.stringify(env)).not.toMatch(/resolve:(secretsmanager|ssm)/);
        expect(JSON.stringify(env)).not.toMatch(/AWS::SSM::Parameter::Value/);
      }
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

  it("passes the citygame source from context (citygameSourceUrl, citygameFields) to the citygame function only", () => {
    const fields = { date: '/b/date', weekday: '/b/weekday', weather: '/b/weather', headline: '/b/headline', tip: '/b/tip' };
    const opFns = (t: Template) =>
      Object.values(t.toJSON().Resources as Record<string, Resource>).filter((r) => r.Type === 'AWS::Lambda::Function' && /^\d+\. GET \/v1\//.test(String(r.Properties.Description)));
    // Fields as a JSON string (-c citygameFields='{…}') or as JSON (cdk.json).
    for (const given of [JSON.stringify(fields), fields]) {
      const fns = opFns(synth({ citygameSourceUrl: 'https://bulletin.example/today.json', citygameFields: given }));
      for (const fn of fns) {
        const vars = fn.Properties.Environment.Variables;
        const isCitygame = String(fn.Properties.Description).includes('/v1/citygame/');
        expect({ url: vars.CITYGAME_SOURCE_URL, fields: vars.CITYGAME_FIELDS && JSON.parse(vars.CITYGAME_FIELDS) }).toEqual(
          isCitygame ? { url: 'https://bulletin.example/today.json', fields } : { url: undefined, fields: undefined },
        );
      }
      expect(fns.filter((fn) => fn.Properties.Environment.Variables.CITYGAME_SOURCE_URL)).toHaveLength(1);
    }
    // Without the context the function is deployed without a source (it answers 503 saying so).
    for (const fn of opFns(template)) expect(fn.Properties.Environment.Variables.CITYGAME_SOURCE_URL).toBeUndefined();
  });

  it.each([
    ['plain http, even on a loopback host', { citygameSourceUrl: 'http://127.0.0.1:8080/today.json' }, /https URL in a deployment/],
    ['not a URL', { citygameSourceUrl: 'bulletin.example/today.json' }, /not an absolute URL/],
    ['credentials in the URL', { citygameSourceUrl: 'https://u:p@bulletin.example/today.json' }, /credentials/],
    ['fields that are not JSON', { citygameSourceUrl: 'https://bulletin.example/x', citygameFields: '{date:' }, /not JSON/],
    ['fields without a source', { citygameFields: '{"date":"/d"}' }, /CITYGAME_SOURCE_URL is not/],
    ['pointers and selectors mixed', { citygameSourceUrl: 'https://bulletin.example/x', citygameFields: { date: '/d', weekday: '.w', weather: '/w', headline: '/h', tip: '/t' } }, /mixes/],
  ])('refuses to synthesize an unusable citygame source: %s', (_what, context, why) => {
    expect(() => synth(context)).toThrow(why);
  });

  it('a proxy URL: the location of its Secrets Manager secret in the environment (read at cold start), or a plain URL only without credentials (18.8)', () => {
    const plain = synth({ scraperProxyUrl: 'http://proxy.internal:3128' });
    plain.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('GET /v1/'),
      Environment: { Variables: Match.objectLike({ SCRAPER_PROXY_URL: 'http://proxy.internal:3128' }) },
    });
    expect(() => synth({ scraperProxyUrl: 'http://user:secret@proxy.internal:3128' })).toThrow(/credentials/);
    // A partial ARN (without the six characters Secrets Manager appends) would match no secret in IAM.
    expect(() => synth({ scraperProxySecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:social-data/proxy-url' })).toThrow(/complete ARN/);
    expect(() => synth({ scraperProxySecretArn: 'proxy url' })).toThrow(/secret name/);

    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:social-data/proxy-url-AbC123';
    for (const [given, granted] of [
      [arn, arn],
      // A name: the ARN pattern of that name in the stack's account and region.
      ['social-data/proxy-url', { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':secretsmanager:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':secret:social-data/proxy-url-??????']] }],
    ] as const) {
      const t = synth({ scraperProxySecretArn: given }).toJSON();
      const all = Object.entries(t.Resources as Record<string, Resource>);
      const fns = all.filter(([, r]) => r.Type === 'AWS::Lambda::Function');
      const ops = fns.filter(([, r]) => /^\d+\. GET \/v1\//.test(String(r.Properties.Description)));
      expect(ops.length).toBe(routed.length);
      for (const [, fn] of ops) {
        expect(fn.Properties.Environment.Variables.SCRAPER_PROXY_URL).toBeUndefined();
        expect(fn.Properties.Environment.Variables.SCRAPER_PROXY_SECRET_ARN).toBe(given);
      }
      const policies = all.filter(([, r]) => r.Type === 'AWS::IAM::Policy');
      const rolesOf = (match: (st: { Action: string | string[]; Resource: unknown }) => boolean) =>
        new Set(policies.filter(([, p]) => p.Properties.PolicyDocument.Statement.some(match)).flatMap(([, p]) => p.Properties.Roles.map((r: { Ref: string }) => r.Ref)));
      const proxyStatements = policies.flatMap(([, p]) => p.Properties.PolicyDocument.Statement).filter((st) => JSON.stringify(st.Resource).includes('proxy-url'));
      // Reading that one secret, nothing else on it: no DescribeSecret, no wildcard; beside it at most the cursor
      // secret (CDK merges the two GetSecretValue statements).
      const cursorSecret = { Ref: all.find(([, r]) => r.Type === 'AWS::SecretsManager::Secret' && String(r.Properties.Description).includes('CURSOR_SECRET'))![0] };
      expect(proxyStatements.length).toBeGreaterThan(0);
      for (const st of proxyStatements) {
        expect({ ...st, Resource: [st.Resource].flat().filter((r) => JSON.stringify(r) !== JSON.stringify(cursorSecret)) }).toEqual({ Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: [granted] });
      }
      // Granted to exactly the roles of the functions told where it is (the operations, MCP, the canaries).
      const told = new Set(fns.filter(([, r]) => r.Properties.Environment?.Variables?.SCRAPER_PROXY_SECRET_ARN === given).map(([, r]) => r.Properties.Role['Fn::GetAtt'][0]));
      expect(told.size).toBeGreaterThan(ops.length);
      expect(rolesOf((st) => JSON.stringify(st.Resource).includes('proxy-url'))).toEqual(told);
      // One secrets client: no SSM action anywhere.
      expect(rolesOf((st) => actionsOf(st).some((a) => a.startsWith('ssm:'))).size).toBe(0);
      expect(JSON.stringify(t.Parameters ?? {})).not.toContain('proxy-url');
    }
  });
});

describe('least-privilege IAM', () => {
  const accounts = { 'Fn::GetAtt': [tableId('AccountsTable'), 'Arn'] };
  const cache = { 'Fn::GetAtt': [tableId('CacheTable'), 'Arn'] };
  const events = { 'Fn::GetAtt': [tableId('EventsTable'), 'Arn'] };

  it('grants no wildcard, Scan, DeleteItem, Batch action (but the status document\'s BatchGetItem on the cache, the authorizer\'s on key and team partitions, the operations\' on team partitions) or table action anywhere, and Query only to the account API and the MCP account tools (the monitors\' functions apart: test/infra/monitors.ts and test/infra/iam/monitors.test.ts; the jobs\' are in their nested stack: test/infra/jobs.ts)', () => {
    const monitorRoles = ['The monitors API', 'Monitors: '].flatMap((d) => ofType('AWS::Lambda::Function').filter(([, fn]) => String(fn.Properties.Description).startsWith(d))).map(([, fn]) => fn.Properties.Role['Fn::GetAtt'][0]);
    expect(monitorRoles).toHaveLength(4);
    const readers = [functionByDescription('dashboard account API'), functionByDescription('the MCP server')].map((fn) => fn.Properties.Role['Fn::GetAtt'][0]).concat(monitorRoles);
    const statusRole = functionByDescription('GET /v1/status').Properties.Role['Fn::GetAtt'][0];
    const authorizerRole = functionByDescription('REQUEST authorizer').Properties.Role['Fn::GetAtt'][0];
    const policies = ofType('AWS::IAM::Policy');
    // What is allowed (the scrapers' explicit Deny of DeleteItem and BatchWriteItem is no grant).
    const allows = (p: Resource) => p.Properties.PolicyDocument.Statement.filter((st: { Effect?: string }) => st.Effect !== 'Deny');
    const isAuthorizers = (p: Resource) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === authorizerRole);
    // The authorizer's one statement with BatchGetItem, checked below; every other action of it here.
    const authorizerBatch = (st: { Action: string | string[] }) => actionsOf(st).includes('dynamodb:BatchGetItem');
    // An operation's BatchGetItem (the ledger records of old reservation marks), in team partitions of the accounts table only.
    const teamBatch = (st: { Action: string | string[]; Resource: unknown }) =>
      authorizerBatch(st) && JSON.stringify(st.Resource) === JSON.stringify(accounts) && JSON.stringify(leadingKeysOf(st as Parameters<typeof leadingKeysOf>[0])) === JSON.stringify(['TEAM#*']);
    const all = policies
      .filter(([, p]) => !p.Properties.Roles.some((r: { Ref: string }) => r.Ref === statusRole || monitorRoles.includes(r.Ref)))
      .flatMap(([, p]) => allows(p).filter((st: { Action: string | string[]; Resource: unknown }) => !(isAuthorizers(p) && authorizerBatch(st)) && !teamBatch(st)).flatMap(actionsOf));
    expect(all.length).toBeGreaterThan(0);
    for (const action of all) {
      expect(action).not.toMatch(/\*|Scan|DeleteItem|Batch|DeleteTable|CreateTable|UpdateTable/);
    }
    // The status document reads its count items by key, 100 at a time, from the cache table only,
    // and writes one kind of item: a finished hour's counts, summed.
    expect(statementsOf(functionByDescription('GET /v1/status'))).toEqual([
      { Effect: 'Allow', Action: ['dynamodb:BatchGetItem', 'dynamodb:GetItem'], Resource: cache },
      { Effect: 'Allow', Action: 'dynamodb:PutItem', Resource: cache, Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['OUT#*#h#*#all'] } } },
    ]);
    // The authorizer reads a known key with its team's balance in one BatchGetItem: on the accounts
    // table, in key and team partitions only (the same statement as its GetItem).
    expect(statementsOf(functionByDescription('REQUEST authorizer')).filter((st) => st.Effect !== 'Deny' && authorizerBatch(st)).map((st) => ({ actions: actionsOf(st).sort(), resource: st.Resource, leading: leadingKeysOf(st) }))).toEqual([
      { actions: ['dynamodb:BatchGetItem', 'dynamodb:GetItem'], resource: accounts, leading: ['KEY#*', 'TEAM#*'] },
    ]);
    const others = policies.filter(([, p]) => !p.Properties.Roles.some((r: { Ref: string }) => readers.includes(r.Ref)));
    expect(others.flatMap(([, p]) => allows(p).flatMap(actionsOf))).not.toContain('dynamodb:Query');
  });

  /** The denies of every function that writes team partitions by UpdateItem (the scrapers, the authorizer). */
  const scraperDenies = [
    { Effect: 'Deny', Action: ['dynamodb:BatchWriteItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem'], Resource: accounts },
    {
      Effect: 'Deny',
      Action: 'dynamodb:UpdateItem',
      Resource: accounts,
      Condition: { 'ForAnyValue:StringEquals': { 'dynamodb:Attributes': ['name', 'usageKey', 'usageKeyId', 'createdAt', TEAM_INDEX.partitionKey, TEAM_INDEX.sortKey] } },
    },
  ];

  it('lets the authorizer only read keys and team balances, and touch a key\'s lastUsedAt: no other write on either table (issue 28)', () => {
    const stmts = statementsOf(functionByDescription('REQUEST authorizer')).filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
    const allowed = stmts.filter((s) => s.Effect !== 'Deny');
    expect(allowed.map((s) => ({ actions: actionsOf(s).sort(), resource: s.Resource, leading: leadingKeysOf(s), attributes: attributesOf(s) }))).toEqual([
      // the key, and a known key with its team's balance in one batch
      { actions: ['dynamodb:BatchGetItem', 'dynamodb:GetItem'], resource: accounts, leading: ['KEY#*', 'TEAM#*'], attributes: undefined },
      // lastUsedAt of a key, and nothing else of it
      { actions: ['dynamodb:UpdateItem'], resource: accounts, leading: ['KEY#*'], attributes: ['pk', 'sk', 'lastUsedAt'] },
    ]);
    // The allow-list must be there (ForAllValues holds for a request without it), and no values come back.
    expect(allowed[1]!.Condition).toMatchObject({ Null: { 'dynamodb:Attributes': 'false' }, StringEqualsIfExists: { 'dynamodb:ReturnValues': ['NONE'] } });
    expect(stmts.filter((s) => s.Effect === 'Deny')).toEqual([]);
  });

  /**
   * 18.7: a function that parses hostile pages writes the accounts table by UpdateItem only: with
   * PutItem it could replace a team item whole by one without the denied attributes. Every function
   * that runs an operation (each operation's and the MCP one) has neither PutItem nor DeleteItem
   * there, and an explicit Deny of both (and BatchWriteItem) that no later grant can lift.
   */
  const scrapers = () => [...routed.map((op) => functionByDescription(`GET ${op.path}`)), functionByDescription('the MCP server')];
  const resourcesOf = (st: { Resource: unknown }) => [st.Resource].flat().map((r) => JSON.stringify(r));
  const onAccounts = (st: { Resource: unknown }) => resourcesOf(st).includes(JSON.stringify(accounts));

  it('lets operation functions get/update accounts items only in team partitions (never a key, member, invitation, session or throttle item; never a team name or usage key), and get/put cache entries (18.7)', () => {
    for (const op of routed) {
      const stmts = statementsOf(functionByDescription(`GET ${op.path}`));
      // CDK merges statements with the same actions into one listing both tables.
      const allowed = (arn: unknown) => stmts.filter((st) => st.Effect !== 'Deny' && resourcesOf(st).includes(JSON.stringify(arn)));
      expect(allowed(accounts).map((st) => ({ actions: actionsOf(st).sort(), leading: leadingKeysOf(st) }))).toEqual([
        { actions: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem'], leading: ['TEAM#*'] },
      ]);
      // The cache keeps its PutItem (entries, shared upstream credentials).
      expect(allowed(cache).flatMap(actionsOf).sort()).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
      expect(stmts.filter((st) => st.Effect === 'Deny')).toEqual(scraperDenies);
      const dynamo = stmts.filter((st) => actionsOf(st).some((a) => a.startsWith('dynamodb:')));
      expect(new Set(dynamo.flatMap(resourcesOf))).toEqual(new Set([JSON.stringify(accounts), JSON.stringify(cache), JSON.stringify(events)]));
      // The events table: only a charge's credits announcement (docs/webhooks.md): the team's watch item read, its alert
      // attributes updated, items of a team event's attributes put; in team partitions; no Query, no Delete.
      expect(allowed(events).map((st) => ({ actions: actionsOf(st).sort(), leading: leadingKeysOf(st), attributes: (st.Condition as Record<string, Record<string, unknown>>)?.['ForAllValues:StringLike']?.['dynamodb:Attributes'] ?? null }))).toEqual([
        { actions: ['dynamodb:GetItem'], leading: ['TEAM#*'], attributes: null },
        { actions: ['dynamodb:UpdateItem'], leading: ['TEAM#*'], attributes: [...CREDIT_WATCH_ATTRIBUTES] },
        { actions: ['dynamodb:PutItem'], leading: ['TEAM#*'], attributes: [...TEAM_EVENT_ATTRIBUTES] },
      ]);
    }
  });

  it('no function that scrapes (every operation\'s, the MCP one) is allowed PutItem or DeleteItem on the accounts table, and each has the explicit Deny of both; the Deny of the team attributes covers UpdateItem (18.7)', () => {
    const fns = scrapers();
    expect(fns).toHaveLength(routed.length + 1);
    for (const fn of fns) {
      const stmts = statementsOf(fn);
      const allowedOnAccounts = stmts.filter((st) => st.Effect !== 'Deny' && onAccounts(st)).flatMap(actionsOf);
      expect(allowedOnAccounts).toContain('dynamodb:UpdateItem');
      expect(allowedOnAccounts).not.toContain('dynamodb:PutItem');
      expect(allowedOnAccounts).not.toContain('dynamodb:DeleteItem');
      expect(allowedOnAccounts.filter((a) => !/^dynamodb:(GetItem|BatchGetItem|UpdateItem|Query)$/.test(a))).toEqual([]);
      const denies = stmts.filter((st) => st.Effect === 'Deny');
      expect(denies).toEqual(scraperDenies);
      // The outright Deny has no condition: it holds for every item, a team item first.
      const outright = denies.find((st) => !st.Condition)!;
      expect(actionsOf(outright)).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:DeleteItem']));
      const attributes = denies.find((st) => st.Condition)!;
      expect(actionsOf(attributes)).toContain('dynamodb:UpdateItem');
      expect(attributes.Condition!['ForAnyValue:StringEquals']!['dynamodb:Attributes']).toEqual(expect.arrayContaining(['name', 'usageKey', 'usageKeyId', 'createdAt']));
    }
    // Only the account API (its own items), nothing that scrapes and none of the monitors' functions
    // (their items are in the events table: test/infra/iam/tables-reach.test.ts), may PutItem on the accounts table.
    const putting = ofType('AWS::Lambda::Function').filter(([, fn]) => statementsOf(fn).some((st) => st.Effect !== 'Deny' && onAccounts(st) && actionsOf(st).includes('dynamodb:PutItem')));
    expect(putting.map(([, fn]) => String(fn.Properties.Description))).toEqual([String(functionByDescription('dashboard account API').Properties.Description)]);
  });

  it('the key pepper (18.7): one retained secret, readable only by the authorizer, the account API, the monitors API and the jobs API (each checks keys or sessions; the last in the jobs\' nested stack), named by KEY_PEPPER_SECRET_ARN', () => {
    const json = template.toJSON() as { Resources: Record<string, Resource & { DeletionPolicy?: string }> };
    const peppers = Object.entries(json.Resources).filter(([, r]) => r.Type === 'AWS::SecretsManager::Secret' && String(r.Properties.Description).includes('KEY_PEPPER_SECRET_ARN'));
    expect(peppers).toHaveLength(1);
    const [pepperId, pepper] = peppers[0]!;
    expect(pepper.DeletionPolicy).toBe('Retain');
    const readers = ofType('AWS::Lambda::Function')
      .filter(([, fn]) => statementsOf(fn).some((st) => [st.Resource].flat().some((r) => JSON.stringify(r) === JSON.stringify({ Ref: pepperId }))))
      .map(([, fn]) => String(fn.Properties.Description));
    expect(readers.sort()).toEqual([functionByDescription('REQUEST authorizer'), functionByDescription('dashboard account API'), functionByDescription('The monitors API')].map((fn) => String(fn.Properties.Description)).sort());
    for (const d of readers) expect(functionByDescription(d).Properties.Environment.Variables.KEY_PEPPER_SECRET_ARN).toEqual({ Ref: pepperId });
    // In the jobs' nested stack, the pepper's ARN comes in as a parameter: the jobs API alone reads it.
    const nestedStatementsOf = (fn: Resource) => nestedOfType('AWS::IAM::Policy').filter(([, p]) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === fn.Properties.Role['Fn::GetAtt'][0])).flatMap(([, p]) => p.Properties.PolicyDocument.Statement as { Resource: unknown }[]);
    const nestedReaders = nestedOfType('AWS::Lambda::Function').filter(([, fn]) => nestedStatementsOf(fn).some((st) => [st.Resource].flat().some((r) => JSON.stringify(r) === JSON.stringify({ Ref: pepperId }))));
    expect(nestedReaders.map(([, fn]) => String(fn.Properties.Description).split(':')[0])).toEqual(['The bulk jobs API']);
    expect(nestedReaders[0]![1].Properties.Environment.Variables.KEY_PEPPER_SECRET_ARN).toEqual({ Ref: pepperId });
    expect(json.Resources).toBeDefined();
    template.hasOutput('KeyPepperSecretArn', { Value: { Ref: pepperId } });
  });
});

describe('dashboard functions', () => {
  const accounts = { 'Fn::GetAtt': [tableId('AccountsTable'), 'Arn'] };

  it('the account API: only its own items (keys, members, invitations, sessions, throttles), reads of team partitions, Query on the byTeam index by team; never a team item write; nothing on the cache (18.7)', () => {
    const stmts = statementsOf(functionByDescription('dashboard account API')).filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
    const own = ['KEY#*', 'MEMBER#*', 'INVITE#*', 'SESSION#*', 'THROTTLE#*'];
    expect(stmts.map((s) => ({ actions: actionsOf(s).sort(), leading: leadingKeysOf(s), index: JSON.stringify(s.Resource).includes(`/index/${TEAM_INDEX.name}`) }))).toEqual([
      { actions: ['dynamodb:GetItem', 'dynamodb:Query'], leading: ['TEAM#*', ...own], index: false },
      { actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'], leading: own, index: false },
      { actions: ['dynamodb:Query'], leading: ['TEAM#*'], index: true },
      // The events table's team partitions: the eager pause of a revoked key's or removed member's monitors, and the change's own team event.
      { actions: ['dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'], leading: ['TEAM#*'], index: false },
    ]);
    expect(stmts[0]).toMatchObject({ Resource: accounts });
    expect(stmts[3]).toMatchObject({ Resource: { 'Fn::GetAtt': [tableId('EventsTable'), 'Arn'] } });
  });

  it('the dashboard pages: no table access at all', () => {
    expect(statementsOf(functionByDescription('dashboard single-page app'))).toEqual([]);
  });
});

describe('REST API', () => {
  const paths = resourcePaths();
  const methods = ofType('AWS::ApiGateway::Method').map(([, m]) => ({ path: paths.get(m.Properties.ResourceId.Ref)!, verb: m.Properties.HttpMethod as string, props: m.Properties }));
  const isData = (path: string) => routed.some((op) => op.path === path) || path === MCP_PATH;

  it('routes the routed operations (GET), the OpenAPI document, the status document, the account API, the dashboard pages, the API reference page, MCP, llms.txt and the monitors API, nothing else', () => {
    expect(methods.map((m) => `${m.verb} ${m.path}`).sort()).toEqual(
      [
        ...routed.map((op) => `GET ${op.path}`),
        'GET /v1/openapi.json',
        'GET /v1/status',
        ...ACCOUNT_ROUTES.map((r) => `${r.method} ${r.path}`),
        'GET /dashboard',
        'GET /dashboard/{proxy+}',
        'GET /docs',
        'GET /docs/{proxy+}',
        ...MCP_METHODS.map((m) => `${m} ${MCP_PATH}`),
        `GET ${LLMS_PATH}`,
        ...MONITOR_ROUTES.map((r) => `${r.method} ${r.path}`),
        ...JOB_ROUTES.map((r) => `${r.method} ${r.path}`),
        ...WEBHOOK_ROUTES.map((r) => `${r.method} ${r.path}`),
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

  it('leaves the API-key authorizer off the OpenAPI document, llms.txt, the status document, the account API (session cookie), the dashboard, the API reference page and the monitors API (key or session, checked by its function)', () => {
    const open = methods.filter((x) => !isData(x.path));
    expect(open).toHaveLength(3 + ACCOUNT_ROUTES.length + 2 + 2 + MONITOR_ROUTES.length + WEBHOOK_ROUTES.length + JOB_ROUTES.length);
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

  it('events: pk/sk, the sparse due index (all attributes), TTL on expiresAt, on demand, point-in-time recovery, retained; every function gets EVENTS_TABLE', () => {
    const events = template.toJSON().Resources[tableId('EventsTable')];
    expect(events.DeletionPolicy).toBe('Retain');
    expect(events.Properties).toMatchObject({
      KeySchema: [{ AttributeName: EVENTS.partitionKey, KeyType: 'HASH' }, { AttributeName: EVENTS.sortKey, KeyType: 'RANGE' }],
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      GlobalSecondaryIndexes: [{ IndexName: DUE_INDEX.name, KeySchema: [{ AttributeName: DUE_INDEX.partitionKey, KeyType: 'HASH' }, { AttributeName: DUE_INDEX.sortKey, KeyType: 'RANGE' }], Projection: { ProjectionType: 'ALL' } }],
    });
    for (const [, fn] of ofType('AWS::Lambda::Function').filter(([, f]) => f.Properties.Environment?.Variables?.ACCOUNTS_TABLE)) expect(fn.Properties.Environment.Variables.EVENTS_TABLE).toEqual({ Ref: tableId('EventsTable') });
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

  it('the MCP function runs the operations in process: their environment, memory and timeout; Query for the account tools (table and byTeam index), nothing else new', () => {
    const op = functionByDescription(`GET ${routed.find((o) => o.parsesHtml)!.path}`);
    expect(mcp.Properties.MemorySize).toBe(1024);
    expect(mcp.Properties.Timeout).toBe(op.Properties.Timeout);
    const env = mcp.Properties.Environment.Variables;
    // The operations' environment, and the monitors API's function its monitor tools invoke.
    expect(Object.keys(env).sort()).toEqual([...Object.keys(op.Properties.Environment.Variables), 'MONITORS_FUNCTION', 'JOBS_FUNCTION'].sort());
    expect(env.CURSOR_SECRET_ARN).toEqual(op.Properties.Environment.Variables.CURSOR_SECRET_ARN);
    const stmts = statementsOf(mcp);
    // CDK merges statements with the same actions into one listing both tables.
    const resources = (st: { Resource: unknown }) => [st.Resource].flat().map((r) => JSON.stringify(r));
    const arn = (prefix: string) => JSON.stringify({ 'Fn::GetAtt': [tableId(prefix), 'Arn'] });
    const byTable = (prefix: string) => stmts.filter((st) => resources(st).includes(arn(prefix))).flatMap(actionsOf).sort();
    const allowedOn = (prefix: string) => stmts.filter((st) => st.Effect !== 'Deny' && resources(st).includes(arn(prefix)));
    expect(allowedOn('AccountsTable').flatMap(actionsOf).sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
    // Every allowed action on the accounts table only in team partitions; the scrapers' denies are there too.
    for (const st of allowedOn('AccountsTable')) expect(leadingKeysOf(st)).toEqual(['TEAM#*']);
    expect(stmts.filter((st) => st.Effect === 'Deny')).toHaveLength(2);
    expect(byTable('CacheTable')).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
    // Besides the tables and the byTeam index (account-requests names each request's key), only what
    // every operation function has, reading the cursor secret, and invoking the monitors API's function.
    const secretRef = JSON.stringify(op.Properties.Environment.Variables.CURSOR_SECRET_ARN);
    const index = JSON.stringify({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [tableId('AccountsTable'), 'Arn'] }, '/index/byTeam']] });
    const monitorsApi = JSON.stringify({ 'Fn::GetAtt': [ofType('AWS::Lambda::Function').find(([, fn]) => String(fn.Properties.Description).startsWith('The monitors API'))![0], 'Arn'] });
    // The jobs API's function is the jobs' nested stack's: its ARN is an output of that stack.
    const jobsApi = JSON.stringify(jobsWiring.output({ 'Fn::GetAtt': [nestedOfType('AWS::Lambda::Function').find(([, fn]) => String(fn.Properties.Description).startsWith('The bulk jobs API'))![0], 'Arn'] }));
    expect(new Set(stmts.flatMap(resources))).toEqual(new Set([arn('AccountsTable'), arn('CacheTable'), arn('EventsTable'), secretRef, index, monitorsApi, jobsApi]));
    // The events table: only a charge's credits announcement, as the operations' functions (docs/webhooks.md).
    expect(byTable('EventsTable')).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
    expect(stmts.filter((st) => resources(st).includes(monitorsApi)).flatMap(actionsOf)).toEqual(['lambda:InvokeFunction']);
    expect(stmts.filter((st) => resources(st).includes(jobsApi)).flatMap(actionsOf)).toEqual(['lambda:InvokeFunction']);
    expect(stmts.filter((st) => resources(st).includes(secretRef)).flatMap(actionsOf)).toEqual(['secretsmanager:GetSecretValue']);
    expect(stmts.filter((st) => resources(st).includes(index)).flatMap(actionsOf)).toEqual(['dynamodb:Query']);
    // Through the index, key ids and names only (issue 30.5; the calls themselves: test/infra/iam/mcp.test.ts).
    expect(stmts.filter((st) => resources(st).includes(index)).map((st) => st.Condition)).toEqual([
      {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['TEAM#*'] },
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': [TEAM_INDEX.partitionKey, 'keyId', 'name'] },
        'StringEquals': { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
      },
    ]);
  });

  it('the account function seals the history cursors with the operations\' cursor secret, read at cold start', () => {
    const account = functionByDescription('The dashboard account API: /v1/account/* (session cookie; API key for the reads)');
    const op = functionByDescription(`GET ${routed[0]!.path}`);
    expect(account.Properties.Environment.Variables.CURSOR_SECRET_ARN).toEqual(op.Properties.Environment.Variables.CURSOR_SECRET_ARN);
    expect(account.Properties.Environment.Variables.CURSOR_SECRET).toBeUndefined();
  });

  it('GET /llms.txt is public and its function touches no table', () => {
    const [m] = methodsAt(LLMS_PATH);
    expect(m).toMatchObject({ HttpMethod: 'GET', AuthorizationType: 'NONE', ApiKeyRequired: false });
    expect(statementsOf(functionByDescription(`GET ${LLMS_PATH}`))).toEqual([]);
  });

  it('GET /llms.txt writes its links with the configured public address: the stage URL, or context publicUrl (issue 30.9)', () => {
    const env = functionByDescription(`GET ${LLMS_PATH}`).Properties.Environment.Variables;
    const [apiId] = ofType('AWS::ApiGateway::RestApi')[0]!;
    expect(JSON.stringify(env.PUBLIC_BASE_URL)).toContain(JSON.stringify({ Ref: apiId }));
    expect(JSON.stringify(env.PUBLIC_BASE_URL)).toMatch(/\/prod"\]\]\}$/);
    const custom = synth({ publicUrl: 'https://api.example.com/social/' }).toJSON() as { Resources: Record<string, Resource> };
    const fn = Object.values(custom.Resources).find((r) => r.Type === 'AWS::Lambda::Function' && String(r.Properties.Description).startsWith(`GET ${LLMS_PATH}`))!;
    expect(fn.Properties.Environment.Variables.PUBLIC_BASE_URL).toBe('https://api.example.com/social');
    for (const bad of ['http://api.example.com', 'https://user:pw@api.example.com', 'not a url']) expect(() => stackTemplate({ publicUrl: bad })).toThrow(/publicUrl/);
  });

  it('the OpenAPI document names the same address as its server (the reference\'s "Try" and generated clients call this deployment)', () => {
    const llms = functionByDescription(`GET ${LLMS_PATH}`).Properties.Environment.Variables.PUBLIC_BASE_URL;
    expect(functionByDescription('GET /v1/openapi.json').Properties.Environment.Variables.PUBLIC_BASE_URL).toEqual(llms);
  });

  it('GET /docs and its assets are public, and their function touches no table and has no secret', () => {
    for (const m of [...methodsAt('/docs'), ...methodsAt('/docs/{proxy+}')]) expect(m).toMatchObject({ HttpMethod: 'GET', AuthorizationType: 'NONE', ApiKeyRequired: false });
    const fn = functionByDescription('GET /docs');
    expect(statementsOf(fn)).toEqual([]);
    expect(Object.keys(fn.Properties.Environment.Variables)).toEqual(['NODE_OPTIONS']);
  });
});

/** The stage's throttle and its per-method settings (issue 18.1). */
function stageOf(t: { Resources: Record<string, Resource> }) {
  const stages = Object.entries(t.Resources).filter(([, r]) => r.Type === 'AWS::ApiGateway::Stage');
  expect(stages).toHaveLength(1);
  return { id: stages[0]![0], props: stages[0]![1].Properties };
}
/** API Gateway's MethodSettings ResourcePath: `/v1/openapi.json` -> `/~1v1~1openapi.json`. */
const settingPath = (p: string) => `/${p.replace(/\//g, '~1')}`;

describe('nobody starves the routes (issues 18.1, 30.1)', () => {
  const json = template.toJSON() as { Resources: Record<string, Resource> };
  const paths = resourcePaths();
  const methods = ofType('AWS::ApiGateway::Method').map(([, m]) => ({ path: paths.get(m.Properties.ResourceId.Ref)!, verb: m.Properties.HttpMethod as string, props: m.Properties }));
  const open = methods.filter((m) => m.props.AuthorizationType === 'NONE');
  const settingsOf = (t: { Resources: Record<string, Resource> }) =>
    stageOf(t).props.MethodSettings as { ResourcePath: string; HttpMethod: string; ThrottlingRateLimit?: number; ThrottlingBurstLimit?: number; CachingEnabled?: boolean; CacheTtlInSeconds?: number }[];
  const settings = settingsOf(json);
  const settingOf = (verb: string, path: string) => settings.find((x) => x.ResourcePath === settingPath(path) && x.HttpMethod === verb);
  const acl = ofType('AWS::WAFv2::WebACL')[0]![1].Properties;
  const ruleNamed = (name: string) => acl.Rules.find((r: { Name: string }) => r.Name === name);

  it('a WAFv2 web ACL (REGIONAL) with the per-address rate-based rule on every route, associated with the stage, by default', () => {
    const acls = ofType('AWS::WAFv2::WebACL');
    expect(acls).toHaveLength(1);
    const [aclId] = acls[0]!;
    expect(acl.Scope).toBe('REGIONAL');
    expect(acl.DefaultAction).toEqual({ Allow: {} });
    const rate = ruleNamed('RateLimitPerAddress');
    expect(rate.Action).toEqual({ Block: expect.anything() });
    expect(rate.Statement.RateBasedStatement).toEqual({ AggregateKeyType: 'IP', Limit: 2000, EvaluationWindowSec: 300 });
    const assoc = ofType('AWS::WAFv2::WebACLAssociation');
    expect(assoc).toHaveLength(1);
    expect(assoc[0]![1].Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    const stage = stageOf(json);
    expect(JSON.stringify(assoc[0]![1].Properties.ResourceArn)).toContain(`/stages/`);
    expect(JSON.stringify(assoc[0]![1].Properties.ResourceArn)).toContain(JSON.stringify({ Ref: ofType('AWS::ApiGateway::RestApi')[0]![0] }));
    expect(JSON.stringify(assoc[0]![1].Properties.ResourceArn)).toContain(JSON.stringify({ Ref: stage.id }));
    expect(JSON.stringify(assoc[0]![1].Properties.ResourceArn)).toContain('/restapis/');
  });

  it('the per-address limit comes from context; wafRateLimit=false leaves the web ACL out', () => {
    const limited = synth({ wafRateLimitPer5Min: 600 }).toJSON() as { Resources: Record<string, Resource> };
    const other = Object.values(limited.Resources).find((r) => r.Type === 'AWS::WAFv2::WebACL')!;
    expect(other.Properties.Rules.find((r: { Name: string }) => r.Name === 'RateLimitPerAddress').Statement.RateBasedStatement.Limit).toBe(600);
    for (const off of [false, 'false']) {
      const without = synth({ wafRateLimit: off }).toJSON() as { Resources: Record<string, Resource> };
      expect(Object.values(without.Resources).filter((r) => r.Type.startsWith('AWS::WAFv2::'))).toEqual([]);
    }
  });

  it('every method belongs to one route group, whose credential matches its authorizer', () => {
    for (const m of methods) {
      const group = groupOf({ method: m.verb, path: m.path });
      expect({ method: `${m.verb} ${m.path}`, group: group?.name }).toEqual({ method: `${m.verb} ${m.path}`, group: expect.any(String) });
      expect(group!.credential({ method: m.verb, path: m.path }) === 'key').toBe(m.props.AuthorizationType === 'CUSTOM');
    }
    expect(ROUTE_GROUPS.flatMap((g) => g.routes).length).toBe(methods.length);
  });

  it("each group's per-address rule is its WAF limit, scoped to its routes; one address at it takes at most 1/4 of any method's burst and 1/20 of its rate", () => {
    const stage = settings.find((x) => x.ResourcePath === '/*' && x.HttpMethod === '*')!;
    for (const group of ROUTE_GROUPS) {
      const rule = ruleNamed(`PerAddress-${group.name}`);
      expect(rule.Action).toEqual({ Block: expect.anything() });
      expect(rule.Statement.RateBasedStatement).toMatchObject({ AggregateKeyType: 'IP', Limit: group.perAddress.limit, EvaluationWindowSec: group.perAddress.windowSeconds });
      for (const route of group.routes) {
        const keyed = group.credential(route) === 'key';
        const own = settingOf(route.method, route.path);
        // Key-authorised methods take the stage's default (API Gateway applies it to each method); open ones their own.
        const share = keyed ? { rate: stage.ThrottlingRateLimit!, burst: stage.ThrottlingBurstLimit! } : { rate: own?.ThrottlingRateLimit ?? 0, burst: own?.ThrottlingBurstLimit ?? 0 };
        expect(keyed ? own : share).toEqual(keyed ? undefined : methodShare(group));
        expect(group.perAddress.limit * 4).toBeLessThanOrEqual(share.burst);
        expect((group.perAddress.limit / group.perAddress.windowSeconds) * 20).toBeLessThanOrEqual(share.rate);
      }
    }
    // And below the overall per-address rule: a group's limit over 5 minutes never exceeds it... per minute.
    for (const group of ROUTE_GROUPS) expect(group.perAddress.limit).toBeLessThan(2000);
  });

  it('fifty browsers opening the dashboard at once, even all behind one address, stay under every limit on their way', () => {
    // One opening: the page (/dashboard or a page under it), app.js and app.css, then /me and the page's data.
    const perBrowser = [
      { verb: 'GET', path: '/dashboard/{proxy+}', n: 3 },
      { verb: 'GET', path: '/v1/account/me', n: 1 },
      { verb: 'GET', path: '/v1/account/keys', n: 1 },
    ];
    let total = 0;
    for (const { verb, path, n } of perBrowser) {
      const group = groupOf({ method: verb, path })!;
      const requests = 50 * n;
      total += requests;
      expect({ path, requests, fits: requests <= settingOf(verb, path)!.ThrottlingBurstLimit! }).toEqual({ path, requests, fits: true });
      expect(perBrowser.filter((x) => groupOf({ method: x.verb, path: x.path }) === group).reduce((a, x) => a + 50 * x.n, 0)).toBeLessThanOrEqual(group.perAddress.limit);
    }
    expect(total).toBeLessThan(2000);
  });

  it('a flood at one method, from one address at its limit, leaves every other caller most of its share (the old even split left 3)', () => {
    for (const m of open) {
      const group = groupOf({ method: m.verb, path: m.path })!;
      const { ThrottlingBurstLimit: burst } = settingOf(m.verb, m.path)!;
      expect(burst! - group.perAddress.limit).toBeGreaterThanOrEqual((3 * burst!) / 4);
    }
  });

  it('synthesis fails when the stage default is below a key-authorised method\'s share', () => {
    expect(() => stackTemplate({ stageBurstLimit: 200 })).toThrow(/below the share of a key-authorised method/);
  });

  describe('requests without the credential their route needs are refused by WAF, before API Gateway counts them', () => {
    type Request = { method: string; path: string; headers?: Record<string, string> };
    /** WAF's evaluation of the statements the stack uses, on one request. */
    const header = (r: Request, name: string) => Object.entries(r.headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];
    const transform = (value: string, steps: { Type: string }[]) =>
      steps.reduce((v, t) => (t.Type === 'LOWERCASE' ? v.toLowerCase() : t.Type === 'COMPRESS_WHITE_SPACE' ? v.replace(/\s+/g, ' ') : t.Type === 'URL_DECODE' ? decodeURIComponent(v) : v), value);
    const field = (r: Request, f: { UriPath?: object; SingleHeader?: { Name: string } }) => (f.UriPath ? r.path : header(r, f.SingleHeader!.Name));
    function matches(st: any, r: Request): boolean { // eslint-disable-line @typescript-eslint/no-explicit-any
      if (st.AndStatement) return st.AndStatement.Statements.every((x: unknown) => matches(x, r));
      if (st.OrStatement) return st.OrStatement.Statements.some((x: unknown) => matches(x, r));
      if (st.NotStatement) return !matches(st.NotStatement.Statement, r);
      if (st.RegexMatchStatement) {
        const v = field(r, st.RegexMatchStatement.FieldToMatch);
        return v !== undefined && new RegExp(st.RegexMatchStatement.RegexString).test(transform(v, st.RegexMatchStatement.TextTransformations));
      }
      if (st.SizeConstraintStatement) {
        const v = field(r, st.SizeConstraintStatement.FieldToMatch);
        expect(st.SizeConstraintStatement.ComparisonOperator).toBe('GT');
        return v !== undefined && transform(v, st.SizeConstraintStatement.TextTransformations).length > st.SizeConstraintStatement.Size;
      }
      if (st.ByteMatchStatement) {
        const v = field(r, st.ByteMatchStatement.FieldToMatch);
        if (v === undefined) return false;
        const t = transform(v, st.ByteMatchStatement.TextTransformations);
        const want = st.ByteMatchStatement.SearchString;
        return st.ByteMatchStatement.PositionalConstraint === 'CONTAINS' ? t.includes(want) : st.ByteMatchStatement.PositionalConstraint === 'STARTS_WITH' ? t.startsWith(want) : t === want;
      }
      throw new Error(`statement not modelled: ${Object.keys(st).join()}`);
    }
    /** The first non-rate rule that blocks the request (its status), and the rate rules that count it. */
    function verdict(r: Request): { status: number | 'allowed'; countedBy: string[] } {
      const rules = [...acl.Rules].sort((a, b) => a.Priority - b.Priority);
      const countedBy: string[] = [];
      for (const rule of rules) {
        const rate = rule.Statement.RateBasedStatement;
        if (rate) {
          if (!rate.ScopeDownStatement || matches(rate.ScopeDownStatement, r)) countedBy.push(rule.Name);
          continue;
        }
        if (matches(rule.Statement, r)) return { status: rule.Action.Block.CustomResponse.ResponseCode, countedBy };
      }
      return { status: 'allowed', countedBy };
    }
    const key = { 'x-api-key': 'A'.repeat(28) };
    const bearer = { authorization: `Bearer ${'A'.repeat(28)}` };
    const cookie = { cookie: 'theme=dark; sda_session=abc' };
    const sample = (path: string) => path.replace('{proxy+}', 'assets/app.js').replace(/\{\w+\}/g, 'abc123');

    it.each([
      ['an operation, no key', { method: 'GET', path: '/prod/v1/livestream/clip' }, 401],
      ['an operation, x-api-key', { method: 'GET', path: '/prod/v1/livestream/clip', headers: key }, 'allowed'],
      ['an operation, Bearer', { method: 'GET', path: '/prod/v1/livestream/clip', headers: bearer }, 'allowed'],
      ['an operation on a custom domain, no key', { method: 'GET', path: '/v1/shortvideo/user/live' }, 401],
      ['an operation, a session cookie only', { method: 'GET', path: '/prod/v1/livestream/clip', headers: cookie }, 401],
      ['MCP, no key', { method: 'POST', path: '/prod/mcp' }, 401],
      ['an unknown path, no key', { method: 'GET', path: '/prod/v1/nothing/here' }, 401],
      ['the account API, no session', { method: 'GET', path: '/prod/v1/account/me' }, 401],
      ['the account API, a key only', { method: 'GET', path: '/prod/v1/account/keys', headers: key }, 401],
      ['the account API, a session', { method: 'DELETE', path: '/prod/v1/account/members/abc/sessions', headers: cookie }, 'allowed'],
      ['a key-readable account read, a key', { method: 'GET', path: '/prod/v1/account/credits', headers: key }, 'allowed'],
      ['a key-readable account read, a session', { method: 'GET', path: '/prod/v1/account/usage', headers: cookie }, 'allowed'],
      ['a key-readable account read, neither', { method: 'GET', path: '/prod/v1/account/requests' }, 401],
      ['sign-in', { method: 'POST', path: '/prod/v1/account/sign-in' }, 'allowed'],
      ['set-password', { method: 'POST', path: '/prod/v1/account/password' }, 'allowed'],
      ['sign-out, no session', { method: 'POST', path: '/prod/v1/account/sign-out' }, 'allowed'],
      ['the dashboard', { method: 'GET', path: '/prod/dashboard' }, 'allowed'],
      ['a dashboard asset', { method: 'GET', path: '/prod/dashboard/assets/app.js' }, 'allowed'],
      ['the API reference', { method: 'GET', path: '/prod/docs' }, 'allowed'],
      ['an API reference asset', { method: 'GET', path: '/prod/docs/assets/reference.js' }, 'allowed'],
      ['the status document', { method: 'GET', path: '/prod/v1/status' }, 'allowed'],
      ['llms.txt', { method: 'GET', path: '/llms.txt' }, 'allowed'],
      ['the OpenAPI document', { method: 'GET', path: '/prod/v1/openapi.json' }, 'allowed'],
    ] as [string, Request, number | 'allowed'][])('%s: %s', (_name, request, status) => {
      expect(verdict(request).status).toBe(status);
    });

    it('every route of every group is counted by the overall rule and by its own group\'s rule alone (with its credential)', () => {
      for (const group of ROUTE_GROUPS) {
        for (const route of group.routes) {
          const credential = group.credential(route);
          const headers = credential === 'key' || credential === 'key-or-session' ? key : credential === 'session' ? cookie : {};
          const v = verdict({ method: route.method, path: `/prod${sample(route.path)}`, headers });
          expect({ route: `${route.method} ${route.path}`, ...v }).toEqual({ route: `${route.method} ${route.path}`, status: 'allowed', countedBy: ['RateLimitPerAddress', `PerAddress-${group.name}`] });
        }
      }
    });
  });

  describe("API Gateway's cache: the dashboard's and the API reference's page and assets and the public documents, nothing else", () => {
    it('a 0.5 GB cache, off by default for every method; on, encrypted, for the dashboard, reference and documents groups', () => {
      const stage = stageOf(json).props;
      expect(stage).toMatchObject({ CacheClusterEnabled: true, CacheClusterSize: '0.5' });
      expect(settings.find((x) => x.ResourcePath === '/*')!.CachingEnabled).toBe(false);
      const cached = settings.filter((x) => x.CachingEnabled).map((x) => `${x.HttpMethod} ${x.ResourcePath}`).sort();
      const expected = ROUTE_GROUPS.flatMap((g) => g.routes.filter((r) => g.cacheTtlSeconds?.(r)).map((r) => `${r.method} ${settingPath(r.path)}`)).sort();
      expect(cached).toEqual(expected);
      expect(expected).toEqual(['GET /~1dashboard', 'GET /~1dashboard~1{proxy+}', 'GET /~1docs', 'GET /~1docs~1{proxy+}', 'GET /~1llms.txt', 'GET /~1v1~1openapi.json', 'GET /~1v1~1status'].sort());
      for (const x of settings.filter((y) => y.CachingEnabled)) expect(x).toMatchObject({ CacheDataEncrypted: true, CacheTtlInSeconds: expect.any(Number) });
    });

    it('each asset is its own cache entry: the proxy path is the cache key (the dashboard, the API reference)', () => {
      for (const path of ['/dashboard/{proxy+}', '/docs/{proxy+}']) {
        const proxy = methods.find((m) => m.path === path)!;
        expect(proxy.props.RequestParameters).toEqual({ 'method.request.path.proxy': true });
        expect(proxy.props.Integration.CacheKeyParameters).toEqual(['method.request.path.proxy']);
      }
      // Kept as long as the page says a browser may keep it (shared/public/reference-page.ts).
      expect(settingOf('GET', '/docs')!.CacheTtlInSeconds).toBe(Number(/max-age=(\d+)/.exec(REFERENCE_HEADERS['cache-control'])![1]));
    });

    it('gatewayCache=false: no cache at all', () => {
      const t = synth({ gatewayCache: 'false' }).toJSON() as { Resources: Record<string, Resource> };
      expect(stageOf(t).props.CacheClusterEnabled).toBeUndefined();
      expect(settingsOf(t).filter((x) => x.CachingEnabled)).toEqual([]);
    });
  });

  it('docs/security.md shows the groups\' arithmetic as the stack builds it', () => {
    const page = readFileSync(path.join(__dirname, '../../docs/security.md'), 'utf8');
    expect(page).toContain(edgeTable());
  });
});

describe('headers and data at rest (issue 18.10)', () => {
  it('every gateway response says nosniff', () => {
    const responses = ofType('AWS::ApiGateway::GatewayResponse');
    expect(responses.length).toBeGreaterThan(5);
    for (const [, r] of responses) expect(r.Properties.ResponseParameters['gatewayresponse.header.x-content-type-options']).toBe("'nosniff'");
  });

  it('the accounts and events tables have deletion protection (the cache does not need it)', () => {
    expect(resources[tableId('AccountsTable')]!.Properties.DeletionProtectionEnabled).toBe(true);
    expect(resources[tableId('EventsTable')]!.Properties.DeletionProtectionEnabled).toBe(true);
    expect(resources[tableId('CacheTable')]!.Properties.DeletionProtectionEnabled).toBeFalsy();
  });

  it('by default: AWS-owned encryption, no KMS key but the monitors\' signing-secret key (envelope encryption: test/infra/monitors.ts)', () => {
    expect(ofType('AWS::KMS::Key').map(([id]) => id.replace(/[0-9A-F]{8}$/, ''))).toEqual(['MonitorKey']);
    for (const [, t] of ofType('AWS::DynamoDB::Table')) expect(t.Properties.SSESpecification?.KMSMasterKeyId).toBeUndefined();
    for (const [, s] of ofType('AWS::SecretsManager::Secret')) expect(s.Properties.KmsKeyId).toBeUndefined();
  });

  it('kmsKey=true: one customer-managed key (rotated, retained) encrypts every table (accounts, cache, events, jobs), the results bucket and every secret', () => {
    for (const flag of [true, 'true']) {
      const t = synth({ kmsKey: flag }).toJSON() as { Resources: Record<string, Resource & { DeletionPolicy?: string }> };
      const all = Object.entries(t.Resources);
      // Beside the monitors' signing-secret key (its own: envelope encryption), one.
      const keys = all.filter(([id, r]) => r.Type === 'AWS::KMS::Key' && !id.startsWith('MonitorKey'));
      expect(keys).toHaveLength(1);
      const [keyId, key] = keys[0]!;
      expect(key.Properties.EnableKeyRotation).toBe(true);
      expect(key.DeletionPolicy).toBe('Retain');
      const tables = all.filter(([, r]) => r.Type === 'AWS::DynamoDB::Table');
      expect(tables).toHaveLength(4);
      for (const [, table] of tables) expect(table.Properties.SSESpecification).toEqual({ SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] } });
      const secrets = all.filter(([, r]) => r.Type === 'AWS::SecretsManager::Secret');
      expect(secrets.length).toBeGreaterThanOrEqual(1);
      for (const [, s] of secrets) expect(s.Properties.KmsKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    }
  });
});

// The cdk-nag pack, the status items and the monitors' part run in this file's module registry, so
// aws-cdk-lib and the stack load once for all four (each test file loads them anew: about 10 s of CPU per file).
import './nag';
import './status';
import './jobs';
import './monitors';
import './budget';
