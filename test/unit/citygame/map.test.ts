import { ApiError } from '../../../shared/http/errors';
import { atPointer, isCalendarDate, mapJsonBulletin, notFound } from '../../../shared/platforms/citygame/map';
import { mapHtmlBulletin } from '../../../shared/platforms/citygame/page';
import { SourceConfigError } from '../../../shared/platforms/citygame/source';

/** The bulletin out of a source's answer, where the deployer said each field is. */
const TOP = { date: '/date', weekday: '/weekday', weather: '/weather', headline: '/headline', tip: '/tip' };
const BULLETIN = { date: '2026-03-02', weekday: 'Monday', weather: 'Light rain, 14°C', headline: 'Tram line 4 reopens', tip: 'Buy bread before noon' };

const failure = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('no failure');
};
const extraction = (f: () => unknown) => {
  const err = failure(f) as ApiError;
  expect(err).toBeInstanceOf(ApiError);
  expect(err.code).toBe('EXTRACTION_FAILED');
  return err.internal!;
};

describe('JSON Pointer (RFC 6901)', () => {
  const doc = { a: { 'b/c': 1, 'd~e': 2, list: ['x', 'y'], '': 'empty key' }, 'k': null };
  test.each([
    ['/a/b~1c', 1],
    ['/a/d~0e', 2],
    ['/a/list/1', 'y'],
    ['/a/', 'empty key'],
    ['/k', null],
    ['/a/list/2', undefined],
    ['/a/list/01', undefined],
    ['/a/list/-', undefined],
    ['/missing/x', undefined],
    ['/a/constructor', undefined],
    ['/a/__proto__', undefined],
  ])('%s', (pointer, value) => {
    expect(atPointer(doc, pointer)).toEqual(value);
  });
});

describe('a JSON source', () => {
  test('the five names at the top level (the default fields), values as given', () => {
    expect(mapJsonBulletin({ ...BULLETIN, extra: 'ignored' }, TOP)).toEqual(BULLETIN);
  });

  test('pointers into a nested document', () => {
    const answer = { bulletin: { day: { iso: '2026-03-02', name: 'Monday' }, sky: 'Light rain, 14°C', news: [{ title: 'Tram line 4 reopens' }], advice: { 'of/day': 'Buy bread before noon' } } };
    const where = { date: '/bulletin/day/iso', weekday: '/bulletin/day/name', weather: '/bulletin/sky', headline: '/bulletin/news/0/title', tip: '/bulletin/advice/of~1day' };
    expect(mapJsonBulletin(answer, where)).toEqual(BULLETIN);
  });

  test.each([
    ['absent', { ...BULLETIN, tip: undefined }],
    ['null', { ...BULLETIN, tip: null }],
    ['empty', { ...BULLETIN, tip: '  ' }],
    ['not a string', { ...BULLETIN, tip: { text: 'x' } }],
  ])('a field %s is null (not on the required list), and named with where it was looked for', (_what, answer) => {
    const data = mapJsonBulletin(answer, TOP);
    expect(data).toEqual({ ...BULLETIN, tip: null });
    expect(notFound(data, TOP, 'JSON Pointer')).toEqual(['tip (JSON Pointer /tip)']);
  });

  test('the date is required: without it, EXTRACTION_FAILED naming it and where it was looked for', () => {
    expect(extraction(() => mapJsonBulletin({ ...BULLETIN, date: undefined }, TOP))).toBe('the upstream answer has no date (JSON Pointer /date)');
    expect(extraction(() => mapJsonBulletin(['not', 'an', 'object'], TOP))).toMatch(/no date/);
    expect(extraction(() => mapJsonBulletin(undefined, TOP))).toMatch(/no date/);
    expect(notFound(mapJsonBulletin({ date: '2026-03-02' }, TOP), TOP, 'JSON Pointer')).toEqual(['weekday (JSON Pointer /weekday)', 'weather (JSON Pointer /weather)', 'headline (JSON Pointer /headline)', 'tip (JSON Pointer /tip)']);
  });

  test.each(['Monday 2 March', '2026-3-2', '02/03/2026', '2026-03-02T08:00:00Z', '2026-02-30', '2026-13-01', ' 2026-03-02'])('a date that is not YYYY-MM-DD (%j) is EXTRACTION_FAILED naming the date', (date) => {
    expect(extraction(() => mapJsonBulletin({ ...BULLETIN, date }, TOP))).toMatch(/^citygame source's date is not YYYY-MM-DD: .* \(JSON Pointer \/date\)$/);
  });
});

describe('an HTML page', () => {
  const page = `<!doctype html><html><body><main id="bulletin">
    <time class="date" datetime="2026-03-02"> 2026-03-02 </time><span class="weekday">Monday</span>
    <p id="weather">Light rain, <b>14°C</b></p><h1>
      Tram line 4 reopens
    </h1><p class="tip">Buy bread before noon</p><p class="tip">second tip, not read</p></main></body></html>`;
  const where = { date: '#bulletin time.date', weekday: '.weekday', weather: '#weather', headline: 'main > h1', tip: 'p.tip' };

  test('each field is the trimmed text of the first element its selector matches', () => {
    expect(mapHtmlBulletin(page, where)).toEqual(BULLETIN);
  });

  test('a selector that matches nothing, or an empty element, is null, named with its selector; without the date it is EXTRACTION_FAILED', () => {
    const noTip = mapHtmlBulletin(page, { ...where, tip: 'aside.tip' });
    expect(noTip.tip).toBeNull();
    expect(notFound(noTip, { ...where, tip: 'aside.tip' }, 'CSS selector')).toEqual(['tip (CSS selector aside.tip)']);
    expect(mapHtmlBulletin(page.replace('Monday', ' '), where).weekday).toBeNull();
    expect(extraction(() => mapHtmlBulletin(page, { ...where, date: 'aside.date' }))).toBe('the upstream answer has no date (CSS selector aside.date)');
  });

  test('a date that is not YYYY-MM-DD is EXTRACTION_FAILED', () => {
    expect(extraction(() => mapHtmlBulletin(page.replace(' 2026-03-02 ', 'Monday, March 2'), where))).toMatch(/date is not YYYY-MM-DD: "Monday, March 2" \(CSS selector #bulletin time.date\)/);
  });

  test('a JSON answer where a page was configured has none of the fields', () => {
    expect(extraction(() => mapHtmlBulletin(JSON.stringify(BULLETIN), where))).toMatch(/no date/);
  });

  test('a selector the parser refuses is a configuration error, not the source failing', () => {
    expect(failure(() => mapHtmlBulletin(page, { ...where, tip: 'p[' }))).toBeInstanceOf(SourceConfigError);
  });
});

test('calendar dates', () => {
  expect(['2026-03-02', '2024-02-29', '1999-12-31'].map(isCalendarDate)).toEqual([true, true, true]);
  expect(['2025-02-29', '2026-04-31', '2026-00-10', '26-03-02', '2026-03-02 '].map(isCalendarDate)).toEqual([false, false, false, false, false]);
});
