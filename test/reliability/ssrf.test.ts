import * as v from 'valibot';
import { operations, routedOperations, type Operation } from '../../shared/operations';
import { FakeUpstream, type FakeReply } from '../../dev/upstream/fake';
import { startHarness, type Harness } from '../support/harness';
import { NetGuard, portOf } from '../support/net-guard';
import { liveOps } from './table';

/**
 * SSRF: every parameter of every operation in the table that takes a URL (planned operations
 * too, through their parameter schema; routed ones through the gateway as well) is fed hostile
 * URLs built from its own example: IP literals in every notation, localhost, userinfo tricks, IDN
 * and homoglyph hosts, trailing dots, ports, other schemes, encoded and back slashes. Whatever is
 * accepted, no connection ever leaves for a host outside the platform's (here: the fake upstream),
 * and an upstream redirect to a foreign host is never followed.
 */

interface Hostile {
  label: string;
  url: string;
  /** Must be refused (422). Otherwise it may be accepted, as long as it names the platform's own host. */
  refuse: boolean;
}

const FOREIGN_MARKERS = /evil|attacker|127\.|2130706433|0x7f|0177|localhost|169\.254|\[|::|10\.0\.0|xn--|example/i;

function hostileFrom(example: string): Hostile[] {
  const u = new URL(example);
  const host = u.hostname;
  const rest = `${u.pathname}${u.search}`;
  const on = (h: string) => `https://${h}${rest}`;
  const list: [string, string, boolean][] = [
    // IP literals
    ['IPv4 loopback', on('127.0.0.1'), true],
    ['IPv4 private', on('10.0.0.1'), true],
    ['cloud metadata', on('169.254.169.254'), true],
    ['IPv4 decimal', on('2130706433'), true],
    ['IPv4 octal', on('0177.0.0.1'), true],
    ['IPv4 hex', on('0x7f.0.0.1'), true],
    ['IPv4 hex whole', on('0x7f000001'), true],
    ['IPv4 short', on('127.1'), true],
    ['IPv4 zero', on('0'), true],
    ['IPv6 loopback', on('[::1]'), true],
    ['IPv6 mapped IPv4', on('[::ffff:127.0.0.1]'), true],
    ['IPv6 mapped hex', on('[::ffff:7f00:1]'), true],
    ['IPv6 unspecified', on('[::]'), true],
    // names that are us
    ['localhost', on('localhost'), true],
    ['localhost with dot', on('localhost.'), true],
    ['subdomain of localhost', on(`${host}.localhost`), true],
    ['platform host as a foreign subdomain', on(`${host}.evil.example`), true],
    ['foreign host ending in the platform name', on(`evil${host}`), true],
    // userinfo and delimiters
    ['platform as userinfo', `https://${host}@evil.example${rest}`, true],
    ['platform:port as userinfo', `https://${host}:443@evil.example${rest}`, true],
    ['encoded @ in host', `https://${host}%40evil.example${rest}`, true],
    ['foreign with platform after #@', `https://evil.example#@${host}${rest}`, true],
    ['foreign with platform after ?@', `https://evil.example?@${host}${rest}`, true],
    ['backslash before @', `https://evil.example\\@${host}${rest}`, true],
    ['backslashes as slashes', `https:\\\\evil.example\\${host}${rest}`, true],
    ['user:password on the platform', `https://user:secret@${host}${rest}`, true],
    ['encoded slash in host', `https://evil.example%2F${host}${rest}`, true],
    ['encoded slash after host', `https://evil.example%2F%2F${host}${rest}`, true],
    ['ideographic full stop to a foreign host', on(`${host}\u3002evil\u3002example`), true],
    // IDN and homoglyphs
    ['Cyrillic homoglyph', on(host.replace(/[aceiop]/, (c) => ({ a: 'а', c: 'с', e: 'е', i: 'і', o: 'о', p: 'р' })[c] as string)), true],
    ['punycode look-alike', on(`xn--${host.replace(/\./g, '-')}-9ta.com`), true],
    ['zero-width joiner in host', on(host.replace('.', '\u200d.')), true],
    // ports
    ['explicit foreign port', `https://${host}:8443${rest}`, true],
    ['port 80 on https', `https://${host}:80${rest}`, true],
    ['port 22', `https://${host}:22${rest}`, true],
    ['explicit default port', `https://${host}:443${rest}`, false],
    // schemes
    ['file', `file:///etc/passwd`, true],
    ['file on host', `file://${host}${rest}`, true],
    ['ftp', `ftp://${host}${rest}`, true],
    ['gopher', `gopher://${host}:70/_GET`, true],
    ['data', `data:text/html,<a href="${example}">x</a>`, true],
    ['javascript', `javascript:fetch('${example}')`, true],
    ['ws', `ws://${host}${rest}`, true],
    ['dict', `dict://127.0.0.1:11211/stat`, true],
    ['protocol-relative', `//${host}${rest}`, true],
    ['no scheme, foreign', `evil.example${rest}`, true],
    // harmless spellings of the platform host (may be accepted; never reach anything else)
    ['trailing dot', on(`${host}.`), false],
    ['upper-case host and scheme', `HTTPS://${host.toUpperCase()}${rest}`, false],
    ['fullwidth letters (normalised to the host)', on(host.replace(/[a-z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0))), false],
    ['encoded slashes in the path', `https://${host}${u.pathname.replace(/\//g, '%2F')}${u.search}`, false],
    ['dot segments in the path', `https://${host}/..%2F..%2F..${rest}`, false],
    ['path traversal to an absolute URL', `https://${host}/https://evil.example${rest}`, false],
  ];
  return list.map(([label, url, refuse]) => ({ label, url, refuse }));
}

/** Parameters that take a URL: named url, or described as taking one (handles that accept profile URLs). */
function urlParams(op: Operation): { name: string; example?: string; schema: v.GenericSchema<string, unknown>; isUrl: boolean }[] {
  return Object.entries(op.params)
    .filter(([name, def]) => name === 'url' || /\bURL\b/.test(def.description))
    .map(([name, def]) => ({ name, example: def.example, schema: def.schema, isUrl: name === 'url' }));
}

/** For handles that accept a profile URL: only foreign-host forms (no example URL to build from). */
const HANDLE_HOSTILE: Hostile[] = [
  'https://evil.example/@alice',
  'https://127.0.0.1/@alice',
  'https://[::1]/profile/alice',
  'https://2130706433/@alice',
  'https://localhost/@alice',
  'http://169.254.169.254/latest/meta-data/',
  'file:///etc/passwd',
  'https://user:pw@evil.example/@alice',
].map((url) => ({ label: url, url, refuse: true }));

const tableCases = (operations as readonly Operation[]).flatMap((op) =>
  urlParams(op).flatMap((p) => {
    const hostile = p.isUrl && p.example?.startsWith('http') ? hostileFrom(p.example) : HANDLE_HOSTILE;
    return hostile.map((x) => [`${op.id}.${p.name}: ${x.label}`, op, p, x] as const);
  }),
);

describe('every URL parameter in the table refuses hostile URLs (parameter schema)', () => {
  test('the table has URL parameters on planned and routed operations alike', () => {
    const ops = new Set(tableCases.map(([, op]) => op.id));
    expect(ops.size).toBeGreaterThanOrEqual(6);
    expect(tableCases.length).toBeGreaterThan(200);
  });

  test.each(tableCases)('%s', (_name, _op, p, x) => {
    const r = v.safeParse(p.schema, x.url);
    if (x.refuse) {
      expect({ url: x.url, accepted: r.success, output: r.success ? r.output : undefined }).toEqual({ url: x.url, accepted: false, output: undefined });
    } else if (r.success) {
      // Accepted: what comes out names nothing but the platform.
      expect(JSON.stringify(r.output)).not.toMatch(FOREIGN_MARKERS);
    }
  });
});

// ---- through the gateway, for routed operations ------------------------------------------------

const routedCases = tableCases.filter(([, op]) => routedOperations().some((r) => r.id === op.id));
let h: Harness;
let key: string;
let foreign: FakeUpstream;
const guard = new NetGuard();
const allowed = () => [portOf(h.fake.url), portOf(h.gateway.url), portOf(process.env.DYNAMODB_ENDPOINT)];

describe('through the local gateway: no connection leaves for another host', () => {
  beforeAll(async () => {
    h = await startHarness({ ratePerMinute: 1e6, burst: 1e6 });
    ({ key } = await h.team(10_000));
    foreign = new FakeUpstream();
    await foreign.start();
    guard.install();
  });
  afterAll(async () => {
    guard.uninstall();
    await foreign.stop();
    await h.stop();
  });
  beforeEach(() => {
    h.fake.reset();
    for (const live of liveOps()) live.scenario.routes(h.fake);
    guard.clear();
  });

  test.each(routedCases)('%s', async (_name, op, p, x) => {
    const live = liveOps().find((l) => l.op.id === op.id)!;
    const query = { ...live.scenario.query };
    // Replace the either-or partner too, so the hostile value is the only identifying parameter.
    for (const [a, b] of (op as Operation).oneOf ?? []) if (p.name === a || p.name === b) delete query[a === p.name ? b : a];
    query[p.name] = x.url;
    const res = await h.call(op.path, query, { key });
    if (x.refuse) {
      expect({ url: x.url, status: res.status }).toEqual({ url: x.url, status: 422 });
      expect(res.body.error.details).toEqual([expect.objectContaining({ path: p.name })]);
      expect(h.fake.requests).toEqual([]);
    }
    expect(guard.foreign(allowed())).toEqual([]);
    // Accepted spellings of the platform host are served (or refused) like any request: never a 500.
    expect(res.status === 503 || res.status < 500).toBe(true);
  });

  const REDIRECTS: [string, (foreignUrl: string) => FakeReply][] = [
    ['to a loopback foreign host', (f) => ({ status: 302, headers: { location: `${f}/internal` } })],
    ['to cloud metadata', () => ({ status: 301, headers: { location: 'http://169.254.169.254/latest/meta-data/iam/' } })],
    ['to the platform name under a foreign domain', () => ({ status: 307, headers: { location: 'https://kick.com.evil.example/x' } })],
    ['to userinfo naming the platform', () => ({ status: 308, headers: { location: 'https://kick.com@evil.example/x' } })],
    ['to a foreign IPv6 literal', () => ({ status: 302, headers: { location: 'http://[::1]:22/' } })],
    ['to a scheme-relative foreign host', () => ({ status: 302, headers: { location: '//evil.example/x' } })],
    ['to file:', () => ({ status: 302, headers: { location: 'file:///etc/passwd' } })],
  ];
  const redirectCases = liveOps().flatMap((live) => REDIRECTS.map(([what, reply]) => [`${live.op.id}: upstream redirects ${what}`, live, reply] as const));

  test.each(redirectCases)('%s: not followed, 503 UPSTREAM_BLOCKED, nothing charged', async (_name, live, reply) => {
    h.fake.reset();
    h.fake.otherwise(reply(foreign.url));
    foreign.forgetConnections();
    const res = await h.call(live.op.path, live.scenario.query, { key });
    expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 503, code: 'UPSTREAM_BLOCKED' });
    expect(h.fake.requests.length).toBeGreaterThan(0);
    expect(foreign.connections).toEqual([]);
    expect(guard.foreign(allowed())).toEqual([]);
  });

  // A platform whose API never redirects a real answer (shortvideo) follows no redirect at all; the
  // others follow the first, which stays on the platform. Either way the second never leaves.
  test.each(liveOps().map((l) => [l.op.id, l] as const))('%s: a redirect within the platform, then off it: the second is never followed', async (_id, live) => {
    h.fake.reset();
    h.fake.otherwise((req) => (req.path === '/hop' ? { status: 302, headers: { location: `${foreign.url}/x` } } : { status: 302, headers: { location: '/hop' } }));
    foreign.forgetConnections();
    const res = await h.call(live.op.path, live.scenario.query, { key });
    expect(res.status).toBe(503);
    if (live.op.platform !== 'shortvideo') expect(h.fake.requestsTo('/hop').length).toBeGreaterThan(0);
    expect(foreign.connections).toEqual([]);
    expect(guard.foreign(allowed())).toEqual([]);
  });
});
