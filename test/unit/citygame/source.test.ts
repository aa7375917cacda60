import { SourceConfigError, checkSourceAtColdStart, configuredSource, parseSource } from '../../../shared/platforms/citygame/source';
import { LogCapture } from '../../support/logs';

/** The deployer's citygame source (CITYGAME_SOURCE_URL, CITYGAME_FIELDS): what is accepted, what is refused and why. */
const FIVE = { date: '/b/date', weekday: '/b/weekday', weather: '/b/weather', headline: '/b/headline', tip: '/b/tip' };
const SELECTORS = { date: 'time.date', weekday: '.weekday', weather: '#weather', headline: 'h1', tip: 'p.tip' };
const refused = (url: string | undefined, fields?: string, deployment = false) => {
  try {
    parseSource(url, fields, { deployment });
  } catch (err) {
    expect(err).toBeInstanceOf(SourceConfigError);
    return (err as Error).message;
  }
  throw new Error('accepted');
};

test('no URL (unset, empty or blank) is no source', () => {
  expect(parseSource(undefined, undefined)).toBeUndefined();
  expect(parseSource('', undefined)).toBeUndefined();
  expect(parseSource('   ', '')).toBeUndefined();
  expect(configuredSource({})).toBeUndefined();
});

test('the default fields are the five names at the top level of a JSON document', () => {
  const s = parseSource('https://bulletin.example/today.json', undefined)!;
  expect(s).toMatchObject({ url: 'https://bulletin.example/today.json', kind: 'json', fields: { date: '/date', weekday: '/weekday', weather: '/weather', headline: '/headline', tip: '/tip' } });
});

test("the source's host, and only it, is the upstream's host, over https on the default port (issue 18.6)", () => {
  const s = parseSource('https://news.bulletin.example/city/daily?lang=en', undefined)!;
  expect(s.upstream).toEqual({ platform: 'citygame', defaultBaseUrl: 'https://news.bulletin.example', hosts: ['news.bulletin.example'], headers: {} });
  expect(s.path).toBe('/city/daily?lang=en');
  expect(refused('https://news.bulletin.example:8443/city/daily')).toMatch(/default port/);
});

test('a loopback http source is reached as an override of its host, like UPSTREAM_<PLATFORM>_URL', () => {
  const s = parseSource('http://127.0.0.1:4321/daily.json?d=1', undefined)!;
  expect(s.upstream).toEqual({ platform: 'citygame', defaultBaseUrl: 'https://127.0.0.1', hosts: ['127.0.0.1'], headers: {}, override: 'http://127.0.0.1:4321' });
  expect(s.path).toBe('/daily.json?d=1');
});

test('JSON Pointers make a JSON source, CSS selectors an HTML source', () => {
  expect(parseSource('https://bulletin.example/x', JSON.stringify(FIVE))).toMatchObject({ kind: 'json', fields: FIVE });
  expect(parseSource('https://bulletin.example/x', JSON.stringify(SELECTORS))).toMatchObject({ kind: 'html', fields: SELECTORS });
  const escaped = { ...FIVE, tip: '/b/tips~1advice/0', weather: '/b/sky~0cast' };
  expect(parseSource('https://bulletin.example/x', JSON.stringify(escaped))!.fields).toEqual(escaped);
});

test('plain http only on a loopback host, and never in a deployment', () => {
  expect(parseSource('http://127.0.0.1:4321/daily.json', undefined)!.upstream.hosts).toEqual(['127.0.0.1']);
  expect(parseSource('http://localhost:4321/daily.json', undefined)).toBeDefined();
  expect(parseSource('http://[::1]:4321/daily.json', undefined)).toBeDefined();
  expect(refused('http://bulletin.example/daily.json')).toMatch(/must be an https URL.*http:\/\/bulletin\.example/);
  expect(refused('http://10.0.0.7/daily.json')).toMatch(/https/);
  expect(refused('http://127.0.0.1:4321/daily.json', undefined, true)).toMatch(/https URL in a deployment/);
  expect(parseSource('https://bulletin.example/daily.json', undefined, { deployment: true })).toBeDefined();
});

test.each([
  ['not a URL', 'bulletin.example/daily.json', /not an absolute URL/],
  ['another scheme', 'ftp://bulletin.example/daily.json', /https/],
  ['file', 'file:///etc/passwd', /https/],
  ['credentials', 'https://user:pw@bulletin.example/daily.json', /credentials/],
])('refused URL: %s', (_what, url, why) => {
  expect(refused(url)).toMatch(why);
});

test.each([
  ['not JSON', '{date: /date}', /not JSON/],
  ['an array', '["/date"]', /JSON object/],
  ['a field left out', JSON.stringify({ ...FIVE, tip: undefined }), /tip has none/],
  ['an empty place', JSON.stringify({ ...FIVE, headline: ' ' }), /headline has none/],
  ['not a string', JSON.stringify({ ...FIVE, date: 3 }), /date has none/],
  ['a field the bulletin does not have', JSON.stringify({ ...FIVE, mayor: '/b/mayor' }), /mayor/],
  ['pointers and selectors mixed', JSON.stringify({ ...FIVE, tip: 'p.tip' }), /mixes JSON Pointers/],
  ['a broken pointer escape', JSON.stringify({ ...FIVE, tip: '/b/t~2' }), /not a JSON Pointer.*tip/],
])('refused fields: %s', (_what, fields, why) => {
  expect(refused('https://bulletin.example/x', fields)).toMatch(why);
});

test('fields without a URL are a mistake, not "no source"', () => {
  expect(refused(undefined, JSON.stringify(FIVE))).toMatch(/CITYGAME_FIELDS is set but CITYGAME_SOURCE_URL is not/);
});

test('the cold-start check logs a missing source (warning) and an unusable one (error), and nothing for a good one', () => {
  const logs = new LogCapture().start('INFO');
  try {
    checkSourceAtColdStart({});
    checkSourceAtColdStart({ CITYGAME_SOURCE_URL: 'http://bulletin.example/x' });
    checkSourceAtColdStart({ CITYGAME_SOURCE_URL: 'https://bulletin.example/x' });
  } finally {
    logs.stop();
  }
  const records = logs.records().filter((r) => String(r.message).startsWith('citygame'));
  expect(records.map((r) => r.level)).toEqual(['WARN', 'ERROR']);
  expect(records[1]).toMatchObject({ cause: expect.stringMatching(/https/) });
});
