import { CookieJar } from '../../../shared/scrape/cookies';

/** The cookie jar of one warm function for one platform (shared/scrape/cookies.ts). */
const setCookie = (...lines: string[]) => ({ headers: { 'set-cookie': lines } });

describe('CookieJar', () => {
  test('an empty jar sends no Cookie header', () => {
    expect(new CookieJar().header()).toBeUndefined();
  });

  test('keeps every Set-Cookie of an answer (one line or many), without its attributes', () => {
    const jar = new CookieJar();
    jar.take({ headers: { 'set-cookie': 'a=1; Path=/; HttpOnly' } });
    jar.take(setCookie('b=two=2; Domain=.unit.example; Secure', 'c=3'));
    expect(jar.header()).toBe('a=1; b=two=2; c=3');
    expect(jar.get('b')).toBe('two=2');
    expect(jar.has('a', 'c')).toBe(true);
    expect(jar.has('a', 'missing')).toBe(false);
  });

  test('a later value replaces an earlier one', () => {
    const jar = new CookieJar();
    jar.set('token', 'old');
    jar.take(setCookie('token=new'));
    expect(jar.header()).toBe('token=new');
  });

  test.each([
    ['Max-Age=0', 'gone=x; Max-Age=0'],
    ['an expiry in 1970', 'gone=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT'],
    ['an empty value', 'gone='],
  ])('a cookie deleted by %s leaves the jar', (_how, line) => {
    const jar = new CookieJar();
    jar.set('gone', 'here');
    jar.set('kept', '1');
    jar.take(setCookie(line));
    expect(jar.get('gone')).toBeUndefined();
    expect(jar.header()).toBe('kept=1');
  });

  test('lines without a name are ignored; clear empties the jar', () => {
    const jar = new CookieJar();
    jar.take(setCookie('=novalue', 'garbage', 'ok=1'));
    expect(jar.header()).toBe('ok=1');
    jar.clear();
    expect(jar.header()).toBeUndefined();
  });
});
