import type { LookupAddress } from 'node:dns';
import type { ApiError } from '../../../shared/http/errors';
import { isPublicAddress, resolveNamesWith, type Resolver } from '../../../shared/scrape/address';
import { CookieJar } from '../../../shared/scrape/cookies';
import { ScrapeContext, upstreamClient } from '../../../shared/scrape/http';
import { UPSTREAM as LINKPAGE } from '../../../shared/platforms/linkpage/site';
import { isPlatformUrl, resolveUpstream } from '../../../shared/scrape/upstream';
import { FakeUpstream } from '../../../dev/upstream/fake';
import { NetGuard } from '../../support/net-guard';

/**
 * Upstream defence in depth (issue 18.6, shared/scrape/http.ts, upstream.ts, address.ts):
 *   - a platform's hosts are reached only over https on the default port;
 *   - no host list names a domain anyone can register (linkpage's GraphQL endpoint must be the
 *     platform's own);
 *   - a redirect to another host carries no credentials and no cookies;
 *   - every direct upstream connection goes only to a public address, whatever the name resolves
 *     to (a local fake resolver stands in for DNS: no real lookup is made), unless
 *     UPSTREAM_<PLATFORM>_URL names the address.
 */
const ctx = () => ScrapeContext.withBudget(3000);
const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as ApiError);

// ---- a resolver under the test's control ------------------------------------------------------

const names = new Map<string, string[]>();
const lookedUp: string[] = [];
const fakeResolver: Resolver = (hostname, _options, callback) => {
  lookedUp.push(hostname);
  const addresses = names.get(hostname);
  if (!addresses) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
  callback(null, addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })));
};
let restoreResolver: () => void;
beforeAll(() => {
  restoreResolver = resolveNamesWith(fakeResolver);
});
afterAll(() => restoreResolver());
beforeEach(() => {
  names.clear();
  lookedUp.length = 0;
});

// ---- scheme and port --------------------------------------------------------------------------

describe('https on the default port only', () => {
  const def = { platform: 'unit-scheme', defaultBaseUrl: 'https://kick.unit.example', hosts: ['kick.unit.example', '.kick.unit.example'], headers: {} };

  test.each([
    ['another port', 'https://kick.unit.example:9001/api/x'],
    ['port 80 on https', 'https://kick.unit.example:80/api/x'],
    ['http', 'http://kick.unit.example/api/x'],
    ['http on a subdomain', 'http://api.kick.unit.example/api/x'],
    ['http on 443', 'http://kick.unit.example:443/api/x'],
  ])('%s is not a platform URL', (_what, u) => {
    expect(isPlatformUrl(def, u)).toBe(false);
    expect(resolveUpstream(def, u)).toBeNull();
  });

  test.each([
    ['the host', 'https://kick.unit.example/api/x'],
    ['a subdomain', 'https://api.kick.unit.example/api/x'],
    ['443 spelled out', 'https://kick.unit.example:443/api/x'],
  ])('%s over https is', (_what, u) => {
    expect(isPlatformUrl(def, u)).toBe(true);
    expect(resolveUpstream(def, u)).not.toBeNull();
  });
});

// ---- host lists ------------------------------------------------------------------------------

describe('host lists name no domain anyone can register', () => {
  test('linkpage: only the platform\'s own domain (no hosted-GraphQL wildcard)', () => {
    expect(isPlatformUrl(LINKPAGE, 'https://anyone.hasura.app/v1/graphql')).toBe(false);
    expect(isPlatformUrl(LINKPAGE, 'https://graphql.pillar.io/v1/graphql')).toBe(true);
    expect(LINKPAGE.hosts.every((h) => h === 'pillar.io' || h.endsWith('.pillar.io'))).toBe(true);
  });
});

// ---- redirects -------------------------------------------------------------------------------

describe('a redirect to another host drops credentials and cookies', () => {
  const fake = new FakeUpstream();
  const client = upstreamClient({ platform: 'unit-creds', defaultBaseUrl: 'https://api.creds.example', hosts: ['api.creds.example', 'cdn.creds.example'], headers: {} }, { platform: 'unit-creds' });
  const SECRET_HEADERS = { authorization: 'Bearer s3cret', 'x-guest-token': 'g123', 'x-csrf-token': 'c456', 'x-twitter-auth-type': 'OAuth2Session', accept: 'application/json' };

  beforeAll(async () => {
    await fake.start();
    process.env.UPSTREAM_UNIT_CREDS_URL = fake.url;
  });
  afterAll(async () => {
    delete process.env.UPSTREAM_UNIT_CREDS_URL;
    await fake.stop();
  });
  beforeEach(() => fake.reset());

  test('to another host of the platform: no Authorization, tokens or cookies on that hop (nor after it)', async () => {
    const jar = new CookieJar();
    jar.set('session', 'abc');
    fake.on('/start', { status: 302, headers: { location: 'https://cdn.creds.example/elsewhere' } });
    fake.on('/elsewhere', { status: 302, headers: { location: 'https://api.creds.example/back' } });
    fake.on('/back', { body: { ok: true } });
    await client.answer(ctx(), '/start', { what: 'redirect', headers: SECRET_HEADERS, jar });
    const [first, second, third] = fake.requests;
    expect(first!.headers).toMatchObject({ authorization: 'Bearer s3cret', 'x-guest-token': 'g123', cookie: 'session=abc' });
    for (const hop of [second!, third!]) {
      expect(Object.keys(hop.headers).filter((h) => /authorization|token|auth|cookie/i.test(h))).toEqual([]);
      expect(hop.headers.accept).toBe('application/json');
    }
  });

  test('on the same host: they stay', async () => {
    const jar = new CookieJar();
    jar.set('session', 'abc');
    fake.on('/start', { status: 301, headers: { location: '/next' } });
    fake.on('/next', { body: { ok: true } });
    await client.answer(ctx(), '/start', { what: 'redirect', headers: SECRET_HEADERS, jar });
    expect(fake.requests[1]!.headers).toMatchObject({ authorization: 'Bearer s3cret', 'x-csrf-token': 'c456', cookie: 'session=abc' });
  });

  test('a redirect to http or to another port of a platform host is not followed', async () => {
    for (const location of ['http://api.creds.example/plain', 'https://api.creds.example:8443/port']) {
      fake.reset();
      fake.on('/start', { status: 302, headers: { location } });
      expect(await failure(client.answer(ctx(), '/start', { what: 'redirect', headers: SECRET_HEADERS }))).toMatchObject({ code: 'UPSTREAM_BLOCKED' });
      expect(fake.requests.map((r) => r.path)).toEqual(['/start']);
    }
  });
});

// ---- resolved addresses -----------------------------------------------------------------------

describe('the resolved address of every upstream connection is checked', () => {
  test.each([
    ['loopback', '127.0.0.1'],
    ['loopback, elsewhere in 127/8', '127.8.9.10'],
    ['private 10/8', '10.1.2.3'],
    ['private 172.16/12', '172.31.255.1'],
    ['private 192.168/16', '192.168.0.10'],
    ['link-local (cloud metadata)', '169.254.169.254'],
    ['CGNAT 100.64/10', '100.100.1.1'],
    ['this network 0/8', '0.0.0.0'],
    ['multicast', '224.0.0.251'],
    ['reserved 240/4', '250.1.1.1'],
    ['broadcast', '255.255.255.255'],
    ['benchmarking 198.18/15', '198.19.0.1'],
    ['documentation 203.0.113/24', '203.0.113.9'],
    ['IETF 192.0.0/24', '192.0.0.170'],
    ['IPv6 loopback', '::1'],
    ['IPv6 unspecified', '::'],
    ['IPv6 link-local', 'fe80::1'],
    ['IPv6 unique local (cloud metadata fd00:ec2::254)', 'fd00:ec2::254'],
    ['IPv6 multicast', 'ff02::1'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
    ['IPv4-mapped metadata, hex', '::ffff:a9fe:a9fe'],
    ['NAT64 of a private address', '64:ff9b::10.0.0.1'],
    ['6to4 of loopback', '2002:7f00:1::1'],
    ['IPv6 documentation', '2001:db8::1'],
  ])('%s (%s) is not public', (_what, ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  test.each(['93.184.215.14', '151.101.1.140', '1.1.1.1', '2606:4700::6810:85e5', '64:ff9b::5db8:d70e', '::ffff:93.184.215.14'])('%s is public', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  test('a platform name that resolves to a private or metadata address is never connected to (DNS rebinding)', async () => {
    const client = upstreamClient({ platform: 'unit-rebind', defaultBaseUrl: 'https://www.rebind.example', hosts: ['www.rebind.example'], headers: {} }, { platform: 'unit-rebind' });
    const guard = new NetGuard().install();
    try {
      for (const address of ['127.0.0.1', '169.254.169.254', '10.0.0.7', '::1', 'fd00:ec2::254']) {
        names.set('www.rebind.example', [address]);
        guard.clear();
        const c = ctx();
        const err = await failure(client.answer(c, '/latest/meta-data/', { what: 'rebind' }));
        expect({ address, code: err?.code, internal: err?.internal }).toEqual({ address, code: 'PLATFORM_UNAVAILABLE', internal: expect.stringContaining('not a public address') });
        // Refused at once: not retried as if the network had failed.
        expect(c.upstreamCalls).toBe(1);
        // The socket was asked for the name, and no connection was opened to any address.
        expect(lookedUp).toContain('www.rebind.example');
        expect(guard.outbound.filter((o) => o.host !== 'www.rebind.example')).toEqual([]);
      }
    } finally {
      guard.uninstall();
    }
  });

  test('a name with public and private addresses: only the public ones are used', async () => {
    const { guardedLookup } = await import('../../../shared/scrape/address');
    names.set('mixed.example', ['10.0.0.1', '93.184.215.14', '::1', '2606:4700::6810:85e5']);
    const all = await new Promise<LookupAddress[]>((resolve, reject) =>
      guardedLookup('mixed.example', { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses as unknown as LookupAddress[]))),
    );
    expect(all.map((a) => a.address)).toEqual(['93.184.215.14', '2606:4700::6810:85e5']);
    const one = await new Promise<string>((resolve, reject) => guardedLookup('mixed.example', {}, (err, address) => (err ? reject(err) : resolve(address as string))));
    expect(one).toBe('93.184.215.14');
  });

  test('UPSTREAM_<PLATFORM>_URL names a loopback address on purpose: that one is allowed', async () => {
    const fake = new FakeUpstream();
    await fake.start();
    names.set('fake-upstream.test', ['127.0.0.1']);
    process.env.UPSTREAM_UNIT_OVERRIDE_URL = `http://fake-upstream.test:${new URL(fake.url).port}`;
    try {
      const client = upstreamClient({ platform: 'unit-override', defaultBaseUrl: 'https://www.override.example', hosts: ['www.override.example'], headers: {} }, { platform: 'unit-override' });
      fake.on('/ok', { body: { ok: true } });
      expect(await client.json(ctx(), '/ok', { what: 'override' })).toEqual({ ok: true });
      expect(lookedUp).toContain('fake-upstream.test');
    } finally {
      delete process.env.UPSTREAM_UNIT_OVERRIDE_URL;
      await fake.stop();
    }
  });
});
