import { RememberedIds } from '../../../shared/scrape/remembered';
import { keptWarm, startCold } from '../../../shared/scrape/warm';

/** startCold(platform) (shared/scrape/warm.ts): the one reset hook of every platform. */
test('startCold forgets what one platform keeps warm, and nothing of another', () => {
  const a = new RememberedIds('unit-warm-a');
  const b = new RememberedIds('unit-warm-b');
  let session = 'warm';
  keptWarm('unit-warm-a', () => (session = 'new'));
  a.remember('alice', '1');
  b.remember('bob', '2');
  startCold('unit-warm-a');
  expect([a.get('alice'), session, b.get('bob')]).toEqual([undefined, 'new', '2']);
  startCold('unit-warm-nothing-loaded'); // nothing registered: nothing to forget
  expect(b.get('bob')).toBe('2');
});
