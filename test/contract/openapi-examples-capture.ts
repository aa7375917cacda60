/**
 * Captures the OpenAPI document's examples (scripts/openapi-examples.ts) from real answers of the
 * local API: the local stack (dev/stack.ts: DynamoDB Local, the local gateway, the real handlers)
 * with every platform answered by its contract scenario, which is the replay of the recorded
 * fixtures (test/contract/scenarios.ts, dev/upstream/replay.ts). `npm run docs` runs it first and
 * writes docs/openapi-examples.json; test/contract/openapi-examples.test.ts runs `captureExamples()`
 * again and compares. It lives beside the scenarios it drives: scripts never import the tests
 * (test/unit/layers.test.ts).
 *
 * Each error example is the answer of a request that makes its case happen: no key (401), a team
 * without credits (402), a query without its parameters (422), the scenario's not-found input and
 * invalid cursor (404, 400), the source down, blocking, or answering another shape (503), a gateway
 * whose throttle is empty (429) and one whose function cannot be loaded (503 SERVICE_UNAVAILABLE,
 * API Gateway's DEFAULT_5XX). A case an operation cannot be brought to is left without an example.
 *
 * Operation 4 (citygame-daily), whose source is configuration, answers from the demo's sample source
 * (dev/demo.ts SAMPLE_SOURCES: a bulletin labelled as sample data made for the demo), on a fixed day.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Examples } from '../../scripts/openapi-examples';

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- arbitrary JSON answers
  headers: Headers;
}

/** The monitors' webhook bodies as a local receiver gets them. */
async function startReceiver() {
  const bodies: Json[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
  return { url, bodies, stop: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

/** An input the recordings do not have, for an operation whose 404 is not in its contract scenario (not in the spec's list). */
const BEYOND_LIST_NOT_FOUND: Record<string, Record<string, string>> = {
  'microblog-b-note': { url: 'https://x.com/HarborKite/status/1000000000000000001' },
};

export async function captureExamples(): Promise<Examples> {
  // Before any project module loads (the logger reads its level when it is created).
  process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  process.env.AWS_REGION ??= 'us-east-1';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // Cursors sealed with one known secret are the same on every run.
  process.env.CURSOR_SECRET = 'openapi-examples: a fixed secret, so a sealed cursor reads the same on every capture';
  process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
  process.env.MONITOR_MIN_INTERVAL_SECONDS = '10';
  // The monitors' signing secrets are sealed under a key of their own (none, and nothing is sealed).
  process.env.MONITOR_KEY ||= 'openapi-examples: the monitors key of a capture';
  delete process.env.CITYGAME_SOURCE_URL;
  delete process.env.CITYGAME_FIELDS;

  const { STABLE_START, Stabilizer, trim } = await import('../../scripts/openapi-examples');
  const { startLocalStack } = await import('../../dev/stack');
  const { startGateway } = await import('../../dev/gateway');
  const { teamWithKey } = await import('../../dev/teams');
  const { invokeInProcess, DEFAULT_RECEIVER_URL } = await import('../../dev/monitors');
  const { fixture } = await import('../../dev/upstream/fake');
  const { MICROBLOG_A, SHORTVIDEO } = await import('../../dev/upstream/replay');
  const { scenarios } = await import('./scenarios');
  const { routedOperations, answeredStatuses } = await import('../../shared/operations');
  const { ERROR_STATUS } = await import('../../shared/http/errors');
  const { SAMPLE_SOURCES } = await import('../../dev/demo');
  const { CITYGAME_SAMPLE_PATH, sampleBulletin } = await import('../../dev/upstream/citygame-sample');
  const { invite } = await import('../../shared/auth/members');
  const { runDue } = await import('../../shared/monitors/scheduler');
  const { RememberedIds } = await import('../../shared/scrape/remembered');
  const { startCold } = await import('../../shared/scrape/warm');
  const { OPENAPI_ROUTE } = await import('../../shared/public/openapi-document');
  const { STATUS_PATH } = await import('../../shared/status/page');
  const { MCP_PATH } = await import('../../shared/api/agent-routes');
  const { db } = await import('../../shared/db/client');
  const { config } = await import('../../shared/runtime/config');
  const { DeleteCommand, ScanCommand } = await import('@aws-sdk/lib-dynamodb');
  /** A poll accepts a cached result half its interval old, by the real clock: the simulated ticks below must find none. */
  const forgetResults = async () => {
    const res = await db().send(new ScanCommand({ TableName: config.cacheTable, ProjectionExpression: 'pk' }));
    for (const item of res.Items ?? []) if (!String(item.pk).startsWith('CRED#')) await db().send(new DeleteCommand({ TableName: config.cacheTable, Key: { pk: item.pk } }));
  };

  const runStart = Date.now();
  const S = new Stabilizer(runStart);
  const ex: Examples = { responses: {}, errors: {}, webhooks: {} };
  const silent = { info() {}, warn() {}, error() {}, debug() {} } as never;

  const stack = await startLocalStack({ upstream: 'fake', team: { name: 'examples', credits: 1000 } });
  const fake = stack.upstream!;
  const receiver = await startReceiver();
  // The receiver listens on a free port; the examples show the one `npm run webhook-receiver` uses.
  S.alias(receiver.url, DEFAULT_RECEIVER_URL);
  const extra: { stop(): Promise<void> }[] = [];
  try {
    const base = stack.gateway.url;
    const { key } = stack.team!;
    const broke = await teamWithKey('examples-no-credits', 0);
    // The gateway's own refusals, on gateways of their own: an empty throttle, a function that cannot load.
    const throttled = await startGateway({ burst: 0, ratePerMinute: 1 });
    const failing = await startGateway({ loadHandler: () => Promise.reject(new Error('openapi-examples: the function cannot be loaded')) });
    extra.push(throttled, failing);

    const call = async (method: string, path: string, opts: { key?: string; query?: Record<string, string>; body?: unknown; cookie?: string; at?: string; headers?: Record<string, string> } = {}): Promise<Answer> => {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.key) headers['x-api-key'] = opts.key;
      if (opts.cookie) headers.cookie = opts.cookie;
      if (method !== 'GET') headers.origin = base;
      if (opts.body !== undefined) headers['content-type'] = 'application/json';
      const qs = opts.query && Object.keys(opts.query).length ? `?${new URLSearchParams(opts.query)}` : '';
      const res = await fetch(`${opts.at ?? base}${path}${qs}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      return { status: res.status, body, headers: res.headers };
    };
    /** A 2xx answer of the document's `<method> <path>`, made stable and readable; `recorded`: its `data` is recorded data. */
    const keep = (at: string, res: Answer, want: number, recorded = false): Answer => {
      if (res.status !== want) throw new Error(`openapi examples: ${at} answered ${res.status} where ${want} was expected: ${JSON.stringify(res.body).slice(0, 500)}`);
      const body = res.body as Json;
      const stable = recorded ? { data: S.stable(body.data, true), meta: S.stable(body.meta) } : S.stable(body);
      (ex.responses[at] ??= {})[String(want)] = trim(stable);
      return res;
    };

    // ---- the operations: one 200 on the recorded data, then each error case ----------------------
    for (const op of [...routedOperations()].sort((a, b) => a.number - b.number)) {
      const at = `get ${op.path}`;
      const scenario = scenarios[op.id as keyof typeof scenarios];
      if (!scenario) throw new Error(`openapi examples: ${op.id} has no contract scenario`);
      const statuses = answeredStatuses(op);
      // An operation whose source is configuration answers from the demo's sample source, labelled
      // as sample data made for the demo (dev/upstream/citygame-sample.ts), on a fixed day.
      const sample = SAMPLE_SOURCES[op.id as keyof typeof SAMPLE_SOURCES] !== undefined;
      const setUp = (variation?: { routes?: (f: typeof fake) => void }) => {
        fake.reset();
        RememberedIds.clearAll();
        startCold(op.platform);
        scenario.routes(fake);
        if (sample) {
          process.env.CITYGAME_SOURCE_URL = `https://bulletin.example${CITYGAME_SAMPLE_PATH}`;
          delete process.env.CITYGAME_FIELDS;
          fake.on(CITYGAME_SAMPLE_PATH, { body: sampleBulletin(new Date(STABLE_START)) });
        }
        variation?.routes?.(fake);
      };
      const error = (res: Answer) => {
        const code = (res.body as { error?: { code?: string } })?.error?.code as keyof typeof ERROR_STATUS | undefined;
        if (!code || ERROR_STATUS[code] !== res.status || !statuses.includes(res.status as never)) return;
        (ex.errors[at] ??= {})[code] ??= trim(S.stable(res.body));
      };
      const query = scenario.query;
      setUp();
      keep(at, await call('GET', op.path, { key, query }), 200, true);
      error(await call('GET', op.path, { query }));
      error(await call('GET', op.path, { key: broke.key, query }));
      const required = Object.values(op.params).some((d) => d.required) || (op.oneOf ?? []).length > 0;
      error(await call('GET', op.path, { key, query: required ? {} : { unknown: 'x' } }));
      if (scenario.notFound && statuses.includes(404)) {
        setUp(scenario.notFound);
        error(await call('GET', op.path, { key, query: scenario.notFound.query ?? query }));
      }
      // A 404 the spec's list leaves out (common rule 5): a note the recordings do not have.
      const beyondList = BEYOND_LIST_NOT_FOUND[op.id];
      if (beyondList && !scenario.notFound && statuses.includes(404)) {
        setUp();
        error(await call('GET', op.path, { key, query: beyondList }));
      }
      if (scenario.badCursor && statuses.includes(400)) {
        setUp(scenario.badCursor);
        error(await call('GET', op.path, { key, query: scenario.badCursor.query }));
      }
      {
        setUp(scenario.unavailable);
        error(await call('GET', op.path, { key, query }));
        const faults: [string, { status?: number; body: unknown }][] = [
          ['UPSTREAM_BLOCKED', { status: 403, body: { error: 'Forbidden' } }],
          ['EXTRACTION_FAILED', { body: { unexpected: true, items: 'none', count: -1 } }],
          ['EXTRACTION_FAILED', { body: '<!DOCTYPE html><html><head><title>Maintenance notes</title></head><body><p>Nothing to see here.</p></body></html>' }],
          ['PLATFORM_UNAVAILABLE', { status: 503, body: { error: 'InternalServerError' } }],
        ];
        for (const [code, reply] of faults) {
          if (ex.errors[at]?.[code]) continue;
          setUp();
          fake.intercept = () => reply;
          error(await call('GET', op.path, { key, query }));
        }
        fake.intercept = undefined;
      }
      error(await call('GET', op.path, { key, query, at: throttled.url }));
      error(await call('GET', op.path, { key, query, at: failing.url }));
    }

    // ---- the account API: a member's whole path, as the dashboard walks it ----------------------
    const { teamId } = stack.team!;
    const password = 'correct horse battery staple';
    const session = (res: Answer) => res.headers.get('set-cookie')?.split(';')[0];
    const { token } = await invite(teamId, 'ana@example.com', Date.now(), 'owner');
    keep('post /v1/account/password', await call('POST', '/v1/account/password', { body: { token, password } }), 200);
    const signIn = await call('POST', '/v1/account/sign-in', { body: { email: 'ana@example.com', password } });
    keep('post /v1/account/sign-in', signIn, 200);
    const cookie = session(signIn)!;
    keep('get /v1/account/me', await call('GET', '/v1/account/me', { cookie }), 200);
    const created = keep('post /v1/account/keys', await call('POST', '/v1/account/keys', { cookie, body: { name: 'ci' } }), 201);
    const newKeyId = (created.body as { data: { key: { keyId: string } } }).data.key.keyId;
    keep('get /v1/account/keys', await call('GET', '/v1/account/keys', { cookie }), 200);
    keep('patch /v1/account/keys/{keyId}', await call('PATCH', `/v1/account/keys/${newKeyId}`, { cookie, body: { name: 'ci nightly' } }), 200);
    keep('delete /v1/account/keys/{keyId}', await call('DELETE', `/v1/account/keys/${newKeyId}`, { cookie }), 200);
    // The team's latest requests, as the account reads show them: a live answer, then the same from the cache.
    const first = [...routedOperations()].sort((a, b) => a.number - b.number)[0]!;
    fake.reset();
    scenarios[first.id as keyof typeof scenarios]!.routes(fake);
    const firstQuery = scenarios[first.id as keyof typeof scenarios]!.query;
    for (const query of [firstQuery, { ...firstQuery, cache_max_age: '1d' }]) {
      const res = await call('GET', first.path, { key, query });
      if (res.status !== 200) throw new Error(`openapi examples: ${first.path} answered ${res.status}`);
    }
    keep('get /v1/account/credits', await call('GET', '/v1/account/credits', { key }), 200);
    keep('get /v1/account/usage', await call('GET', '/v1/account/usage', { key, query: { days: '2' } }), 200);
    keep('get /v1/account/requests', await call('GET', '/v1/account/requests', { key, query: { limit: '2' } }), 200);
    const { token: token2 } = await invite(teamId, 'ben@example.com', Date.now(), 'member');
    await call('POST', '/v1/account/password', { body: { token: token2, password } });
    const ben = await call('POST', '/v1/account/sign-in', { body: { email: 'ben@example.com', password } });
    const benId = (ben.body as { data: { memberId: string } }).data.memberId;
    keep('get /v1/account/members', await call('GET', '/v1/account/members', { cookie }), 200);
    const sessions = keep('get /v1/account/members/{memberId}/sessions', await call('GET', `/v1/account/members/${benId}/sessions`, { cookie }), 200);
    const benSession = (sessions.body as { data: { sessions: { sessionId: string }[] } }).data.sessions[0]!.sessionId;
    keep('delete /v1/account/members/{memberId}/sessions/{sessionId}', await call('DELETE', `/v1/account/members/${benId}/sessions/${benSession}`, { cookie }), 200);
    // A member ending their own sessions: every other one; their current one is what is still live.
    await call('POST', '/v1/account/sign-in', { body: { email: 'ben@example.com', password } });
    const benCookie = session(await call('POST', '/v1/account/sign-in', { body: { email: 'ben@example.com', password } }))!;
    keep('delete /v1/account/members/{memberId}/sessions', await call('DELETE', `/v1/account/members/${benId}/sessions`, { cookie: benCookie }), 200);
    keep('post /v1/account/me/password', await call('POST', '/v1/account/me/password', { cookie, body: { currentPassword: password, password: `${password} again` } }), 200);
    keep('delete /v1/account/members/{memberId}', await call('DELETE', `/v1/account/members/${benId}`, { cookie }), 200);
    keep('post /v1/account/sign-out', await call('POST', '/v1/account/sign-out', { cookie, body: {} }), 200);

    // ---- the monitors API and its webhooks, delivered to a local receiver -----------------------
    let clock = Date.now();
    /** The first `type` event the receiver got after its `from`-th body, kept as the example of that event. */
    const take = async (type: string, from: number) => {
      for (let waited = 0; !receiver.bodies.slice(from).some((b) => b.type === type) && waited < 5_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      const got = receiver.bodies.slice(from).find((b) => b.type === type);
      if (!got) throw new Error(`openapi examples: no ${type} delivered (got ${receiver.bodies.slice(from).map((b) => b.type).join(', ') || 'nothing'})`);
      const { data, ...rest } = got as { data: Json };
      const { items, user, live, lastLive, bulletin, ...about } = data;
      const recorded = Object.fromEntries(Object.entries({ items, user, live, lastLive, bulletin }).filter(([, v]) => v !== undefined).map(([k, v]) => [k, S.stable(v, true)]));
      ex.webhooks[type] ??= trim({ ...(S.stable(rest) as Json), data: { ...(S.stable(about) as Json), ...recorded } });
    };
    /** The scheduler's next round, a minute on: due polls, then due deliveries. */
    const tick = async (type: string) => {
      clock += 61_000;
      await forgetResults();
      const before = receiver.bodies.length;
      await runDue(clock, silent, invokeInProcess);
      await take(type, before);
    };
    const feedOp = routedOperations().find((o) => o.id === 'microblog-a-user-posts')!;
    const feedScenario = scenarios['microblog-a-user-posts']!;
    fake.reset();
    feedScenario.routes(fake);
    // The first poll sees the feed without its two newest posts; the next one sees them: items.new.
    const page = fixture('microblog-a/feed-page1.json') as { feed: unknown[] };
    fake.intercept = (req) => (req.path === MICROBLOG_A.feed && !req.query.cursor ? { body: { ...page, feed: page.feed.slice(2) } } : undefined);
    const createdMonitor = keep(
      'post /v1/monitors',
      await call('POST', '/v1/monitors', { key, body: { operation: feedOp.id, params: feedScenario.query, intervalSeconds: 60, webhookUrl: receiver.url } }),
      201,
    );
    const monitorId = (createdMonitor.body as { data: { monitor: { id: string } } }).data.monitor.id;
    S.token(monitorId);
    await tick('monitor.ready');
    fake.intercept = undefined;
    await tick('items.new');
    const beforeTest = receiver.bodies.length;
    keep('post /v1/monitors/{monitorId}/test', await call('POST', `/v1/monitors/${monitorId}/test`, { key, body: {} }), 202);
    // Queued (202): the scheduler's next round sends it.
    await runDue(clock, silent, invokeInProcess);
    await take('monitor.test', beforeTest);
    keep('get /v1/monitors', await call('GET', '/v1/monitors', { key }), 200);
    keep('get /v1/monitors/{monitorId}', await call('GET', `/v1/monitors/${monitorId}`, { key }), 200);
    keep('patch /v1/monitors/{monitorId}', await call('PATCH', `/v1/monitors/${monitorId}`, { key, body: { intervalSeconds: 120 } }), 200);
    const deliveries = keep('get /v1/monitors/{monitorId}/deliveries', await call('GET', `/v1/monitors/${monitorId}/deliveries`, { key }), 200);
    const eventId = (deliveries.body as { data: { deliveries: { eventId: string }[] } }).data.deliveries.at(-1)!.eventId;
    keep('get /v1/monitors/{monitorId}/deliveries/{eventId}', await call('GET', `/v1/monitors/${monitorId}/deliveries/${eventId}`, { key }), 200);
    // One test or redelivery per monitor every 5 s (shared/monitors/api.ts): the test above was one.
    await new Promise((r) => setTimeout(r, 5_100));
    keep('post /v1/monitors/{monitorId}/deliveries/{eventId}/redeliver', await call('POST', `/v1/monitors/${monitorId}/deliveries/${eventId}/redeliver`, { key, body: {} }), 202);
    keep('post /v1/monitors/{monitorId}/rotate-secret', await call('POST', `/v1/monitors/${monitorId}/rotate-secret`, { key, body: {} }), 200);
    keep('post /v1/monitors/{monitorId}/transfer', await call('POST', `/v1/monitors/${monitorId}/transfer`, { key, body: {} }), 200);
    keep('delete /v1/monitors/{monitorId}', await call('DELETE', `/v1/monitors/${monitorId}`, { key }), 200);

    // A live account: live -> offline (live.ended) -> live (live.started) -> gone (monitor.paused).
    const liveScenario = scenarios['shortvideo-user-live']!;
    fake.reset();
    liveScenario.routes(fake);
    const liveMonitor = await call('POST', '/v1/monitors', { key, body: { operation: 'shortvideo-user-live', params: liveScenario.query, intervalSeconds: 60, webhookUrl: receiver.url } });
    if (liveMonitor.status !== 201) throw new Error(`openapi examples: a live monitor answered ${liveMonitor.status}`);
    const offline = fixture('shortvideo/live-user-room-offline.json');
    const gone = fixture('shortvideo/live-user-not-found.json');
    const liveLookup = (body: unknown) => (req: { path: string }) => (req.path.startsWith(SHORTVIDEO.liveLookup) ? { body } : undefined);
    await tick('monitor.ready');
    fake.intercept = liveLookup(offline);
    await tick('live.ended');
    fake.intercept = undefined;
    await tick('live.started');
    fake.intercept = liveLookup(gone);
    await tick('monitor.paused');
    fake.intercept = undefined;

    // The day's bulletin (operation 4 on the demo's labelled sample source): the day before's first,
    // then the fixed day's, which is bulletin.new.
    fake.reset();
    process.env.CITYGAME_SOURCE_URL = `https://bulletin.example${CITYGAME_SAMPLE_PATH}`;
    delete process.env.CITYGAME_FIELDS;
    let day = new Date(STABLE_START - 86_400_000);
    fake.on(CITYGAME_SAMPLE_PATH, () => ({ body: sampleBulletin(day) }));
    const bulletinMonitor = await call('POST', '/v1/monitors', { key, body: { operation: 'citygame-daily', params: {}, intervalSeconds: 60, webhookUrl: receiver.url } });
    if (bulletinMonitor.status !== 201) throw new Error(`openapi examples: a bulletin monitor answered ${bulletinMonitor.status}`);
    S.token((bulletinMonitor.body as { data: { monitor: { id: string } } }).data.monitor.id);
    await tick('monitor.ready');
    day = new Date(STABLE_START);
    await tick('bulletin.new');

    // ---- the bulk jobs API: an upload, a job of two inputs run to its end, its files -------------
    fake.reset();
    feedScenario.routes(fake);
    S.alias(base, 'http://localhost:3000');
    S.token(stack.team!.teamId);
    /** A signed URL's expiry and signature, written as fixed stand-ins (they change every run, and every second). */
    const signed = (res: Answer): Answer => ({
      ...res,
      body: JSON.parse(JSON.stringify(res.body).replace(/expires=\d+&signature=[\w-]+/g, 'expires=1767225600&signature=c2lnbmVkLWJ5LXRoZS1zZXJ2aWNlLWZvci0xNS1taW51dGVz')) as unknown,
    });
    // The jobs' events (job.succeeded, job.failed, job.paused), delivered to the local receiver by an
    // endpoint of each team that runs a job here (not kept as examples: the webhooks section's are).
    const { JOB_EVENTS } = await import('../../shared/api/job-routes');
    for (const team of [key, broke.key]) {
      const ep = await call('POST', '/v1/webhooks', { key: team, body: { url: receiver.url, types: JOB_EVENTS, description: 'jobs' } });
      if (ep.status !== 201) throw new Error(`openapi examples: a jobs endpoint answered ${ep.status}`);
      S.token((ep.body as { data: { endpoint: { id: string } } }).data.endpoint.id);
    }
    /** The scheduler's next rounds (the team events' deliveries), then the first `type` body since `from`. */
    const jobEvent = async (type: string, from: number) => {
      for (let round = 0; round < 2; round++) await runDue((clock += 1_000), silent, invokeInProcess);
      await take(type, from);
    };
    const upload = await call('POST', '/v1/jobs/uploads', { key, body: { format: 'jsonl' } });
    keep('post /v1/jobs/uploads', signed(upload), 201);
    const up = (upload.body as { data: { upload: { id: string; url: string; headers: Record<string, string> } } }).data.upload;
    S.token(up.id);
    await fetch(up.url, { method: 'PUT', headers: up.headers, body: `${JSON.stringify(feedScenario.query)}\n` });
    const job = await call('POST', '/v1/jobs', { key, body: { operation: feedOp.id, inputs: [feedScenario.query, `@${feedScenario.query.handle}`] } });
    const jobId = (job.body as { data: { job: { id: string } } }).data.job.id;
    S.token(jobId);
    let fromJobs = receiver.bodies.length;
    await stack.jobs.idle();
    await jobEvent('job.succeeded', fromJobs);
    keep('post /v1/jobs', job, 201);
    keep('get /v1/jobs', await call('GET', '/v1/jobs', { key }), 200);
    keep('get /v1/jobs/{jobId}', await call('GET', `/v1/jobs/${jobId}`, { key }), 200);
    keep('get /v1/jobs/{jobId}/results', signed(await call('GET', `/v1/jobs/${jobId}/results`, { key })), 200);
    const destination = await call('GET', '/v1/jobs/destination', { key });
    // The external ID's random part (sda-<32 hex>): a stand-in of the same shape.
    S.token((destination.body as { data: { destination: { externalId: string } } }).data.destination.externalId.slice(4));
    keep('get /v1/jobs/destination', destination, 200);
    // A job whose delivery to the customer's bucket failed (the role refused us), delivered by a retry once the role is
    // fixed: moto_server as S3 and STS (test/support/moto.ts), as test/integration/jobs/destination.test.ts has it.
    {
      const { startMoto } = await import('../support/moto');
      const { CreateBucketCommand, S3Client } = await import('@aws-sdk/client-s3');
      const moto = await startMoto();
      extra.push(moto);
      const before = { ...process.env };
      try {
        Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', JOBS_S3_ENDPOINT: moto.endpoint, JOBS_STS_ENDPOINT: moto.stsEndpoint });
        const region = process.env.AWS_REGION!;
        await new S3Client({ region, endpoint: moto.endpoint, forcePathStyle: true }).send(new CreateBucketCommand({ Bucket: 'my-exports', ...(region === 'us-east-1' ? {} : { CreateBucketConfiguration: { LocationConstraint: region as 'eu-west-1' } }) }));
        const roleArn = 'arn:aws:iam::123456789012:role/social-data-delivery';
        moto.refusing.add(roleArn);
        const externalId = (destination.body as { data: { destination: { externalId: string } } }).data.destination.externalId;
        const delivered = await call('POST', '/v1/jobs', { key, body: { operation: feedOp.id, inputs: [feedScenario.query], destination: { type: 's3', bucket: 'my-exports', prefix: 'social-data', roleArn, externalId } } });
        if (delivered.status !== 201) throw new Error(`openapi examples: a job with a destination answered ${delivered.status}`);
        const deliveredId = (delivered.body as { data: { job: { id: string } } }).data.job.id;
        S.token(deliveredId);
        await stack.jobs.idle();
        moto.refusing.delete(roleArn);
        const retried = await call('POST', `/v1/jobs/${deliveredId}/destination/retry`, { key, body: {} });
        if ((retried.body as { data?: { job: { destination?: { state: string } } } }).data?.job.destination?.state !== 'delivered') throw new Error(`openapi examples: a delivery retry answered ${retried.status} ${JSON.stringify(retried.body)}`);
        keep('post /v1/jobs/{jobId}/destination/retry', retried, 200);
      } finally {
        process.env = before;
      }
    }
    // A second job, from the upload: cancelled before it ends (or as it ends), then resumed is refused; a paused one resumes.
    // A slow upstream keeps it running while it is cancelled.
    fake.delayMs = 1000;
    const second = await call('POST', '/v1/jobs', { key, body: { operation: feedOp.id, inputsUpload: up.id } });
    const secondId = (second.body as { data: { job: { id: string } } }).data.job.id;
    S.token(secondId);
    keep('post /v1/jobs/{jobId}/cancel', await call('POST', `/v1/jobs/${secondId}/cancel`, { key, body: {} }), 200);
    await stack.jobs.idle();
    fake.delayMs = 0;
    const brokeJob = await call('POST', '/v1/jobs', { key: broke.key, body: { operation: feedOp.id, inputs: [feedScenario.query] } });
    const brokeId = (brokeJob.body as { data: { job: { id: string } } }).data.job.id;
    S.token(brokeId);
    S.token(broke.teamId);
    await stack.jobs.idle();
    await jobEvent('job.paused', fromJobs);
    keep('post /v1/jobs/{jobId}/resume', await call('POST', `/v1/jobs/${brokeId}/resume`, { key: broke.key, body: {} }), 200);
    await stack.jobs.idle();
    // A job whose every input fails (the source answers nothing, and no cached answer is left): job.failed.
    fake.reset();
    await forgetResults();
    const failedJob = await call('POST', '/v1/jobs', { key, body: { operation: feedOp.id, inputs: [feedScenario.query] } });
    if (failedJob.status !== 201) throw new Error(`openapi examples: a job answered ${failedJob.status}`);
    S.token((failedJob.body as { data: { job: { id: string } } }).data.job.id);
    fromJobs = receiver.bodies.length;
    await stack.jobs.idle();
    await jobEvent('job.failed', fromJobs);
    // ---- team webhook endpoints and their events (docs/webhooks.md), on a team of their own ------
    {
      const { createKey, revokeKey } = await import('../../shared/auth/keys');
      const { invite, memberByEmail, removeMember } = await import('../../shared/auth/members');
      const { reserve } = await import('../../shared/accounting/reservation');
      const { getTeam } = await import('../../shared/accounting/teams');
      const { TEAM_EVENT_TYPES } = await import('../../shared/webhooks/catalogue');
      const { forgetCreditWatches } = await import('../../shared/webhooks/credits');
      const { watchStatus } = await import('../../shared/webhooks/status-watch');
      const hooks = await teamWithKey('examples-webhooks', 3);
      S.token(hooks.teamId);
      const hk = hooks.key;
      S.token(hk);
      const deliver = async (type: string, from: number) => {
        clock += 1_000;
        await runDue(clock, silent, invokeInProcess);
        await runDue((clock += 1_000), silent, invokeInProcess);
        await take(type, from);
      };
      const created = keep('post /v1/webhooks', await call('POST', '/v1/webhooks', { key: hk, body: { url: receiver.url, types: TEAM_EVENT_TYPES, description: 'ops alerts' } }), 201);
      const endpointId = (created.body as { data: { endpoint: { id: string } } }).data.endpoint.id;
      S.token(endpointId);
      keep('get /v1/webhooks', await call('GET', '/v1/webhooks', { key: hk }), 200);
      keep('get /v1/webhooks/{endpointId}', await call('GET', `/v1/webhooks/${endpointId}`, { key: hk }), 200);
      keep('patch /v1/webhooks/{endpointId}', await call('PATCH', `/v1/webhooks/${endpointId}`, { key: hk, body: { description: 'ops alerts (on call)' } }), 200);
      keep('patch /v1/webhooks/settings', await call('PATCH', '/v1/webhooks/settings', { key: hk, body: { creditsLowThreshold: 2 } }), 200);
      keep('get /v1/webhooks/settings', await call('GET', '/v1/webhooks/settings', { key: hk }), 200);
      let from = receiver.bodies.length;
      keep('post /v1/webhooks/{endpointId}/test', await call('POST', `/v1/webhooks/${endpointId}/test`, { key: hk, body: {} }), 202);
      await deliver('webhook.test', from);
      from = receiver.bodies.length;
      const made = await createKey(hooks.teamId, 'ci', (await getTeam(hooks.teamId))!.usageKey);
      S.token(made.record.keyId);
      await deliver('key.created', from);
      from = receiver.bodies.length;
      await revokeKey(hooks.teamId, made.record.keyId);
      await deliver('key.revoked', from);
      from = receiver.bodies.length;
      await invite(hooks.teamId, 'leaver@example.com');
      const leaver = await memberByEmail(hooks.teamId, 'leaver@example.com');
      S.token(leaver!.memberId);
      await removeMember(leaver!);
      await deliver('member.removed', from);
      // 3 credits, threshold 2: 3 -> 2 (not below), 2 -> 1 (credits.low), 1 -> 0 (credits.exhausted).
      forgetCreditWatches();
      from = receiver.bodies.length;
      for (let i = 0; i < 3; i++) await reserve(hooks.teamId);
      await deliver('credits.low', from);
      await take('credits.exhausted', from);
      // The public status as the tick sees it (a document of the status rules' words, not the counters: the status example stays as captured).
      const statusOf = (state: string, reason: string) => async () => ({ operations: [{ operation: feedOp.id, state, reason }] });
      await watchStatus(clock, statusOf('operational', '0 of 40 source answers failed in 15 minutes'), silent, { force: true });
      from = receiver.bodies.length;
      await watchStatus(clock, statusOf('degraded', '9 of 40 source answers failed in 15 minutes'), silent, { force: true });
      await deliver('operation.degraded', from);
      from = receiver.bodies.length;
      await watchStatus(clock, statusOf('operational', '2 of 40 source answers failed in 15 minutes'), silent, { force: true });
      await deliver('operation.recovered', from);
      const hookDeliveries = keep('get /v1/webhooks/{endpointId}/deliveries', await call('GET', `/v1/webhooks/${endpointId}/deliveries`, { key: hk }), 200);
      const hookEvent = (hookDeliveries.body as { data: { deliveries: { eventId: string; type: string }[] } }).data.deliveries.find((d) => d.type === 'key.revoked')!.eventId;
      keep('get /v1/webhooks/{endpointId}/deliveries/{eventId}', await call('GET', `/v1/webhooks/${endpointId}/deliveries/${hookEvent}`, { key: hk }), 200);
      await new Promise((r) => setTimeout(r, 5_100));
      keep('post /v1/webhooks/{endpointId}/deliveries/{eventId}/redeliver', await call('POST', `/v1/webhooks/${endpointId}/deliveries/${hookEvent}/redeliver`, { key: hk, body: {} }), 202);
      keep('post /v1/webhooks/{endpointId}/rotate-secret', await call('POST', `/v1/webhooks/${endpointId}/rotate-secret`, { key: hk, body: {} }), 200);
      keep('delete /v1/webhooks/{endpointId}', await call('DELETE', `/v1/webhooks/${endpointId}`, { key: hk }), 200);
    }

    // ---- the public documents and the agents' endpoint ------------------------------------------
    keep(`get ${STATUS_PATH}`, await call('GET', STATUS_PATH), 200);
    const doc = await call('GET', OPENAPI_ROUTE);
    // The document itself: its opening fields (the whole is this very document).
    keep(`get ${OPENAPI_ROUTE}`, { ...doc, body: { openapi: doc.body.openapi, info: doc.body.info } }, 200);
    const init = await call('POST', MCP_PATH, {
      key,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'openapi-examples', version: '1.0.0' } } },
    });
    keep(`post ${MCP_PATH}`, init, 200);
    return ex;
  } finally {
    fake.intercept = undefined;
    for (const g of extra) await g.stop();
    await receiver.stop();
    await stack.stop();
  }
}

if (require.main === module) {
  const started = Date.now();
  void (async () => {
    const { writeFileSync, readFileSync, existsSync } = await import('node:fs');
    const { EXAMPLES_FILE, renderExamples } = await import('../../scripts/openapi-examples');
    const text = renderExamples(await captureExamples());
    const same = existsSync(EXAMPLES_FILE) && readFileSync(EXAMPLES_FILE, 'utf8') === text;
    if (!same) writeFileSync(EXAMPLES_FILE, text);
    console.log(`${same ? 'unchanged' : 'wrote'} docs/openapi-examples.json (examples captured in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
    process.exit(0);
  })().catch((err: unknown) => {
    console.error(`capturing the OpenAPI examples failed: ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  });
}
