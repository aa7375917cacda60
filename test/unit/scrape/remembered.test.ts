import { RememberedIds } from '../../../shared/scrape/remembered';

/** RememberedIds (shared/scrape/remembered.ts): name -> id memory of a warm function, bounded in age and size. */
describe('RememberedIds', () => {
  test('remembers, forgets, and clears', () => {
    const ids = new RememberedIds('unit');
    expect(ids.get('alice')).toBeUndefined();
    ids.remember('alice', '1');
    ids.remember('bob', '2');
    expect([ids.get('alice'), ids.get('bob')]).toEqual(['1', '2']);
    ids.forget('alice');
    expect(ids.get('alice')).toBeUndefined();
    ids.clear();
    expect(ids.get('bob')).toBeUndefined();
  });

  test('a name is forgotten once older than the TTL; remembering it again renews it', () => {
    const ids = new RememberedIds('unit', 1000);
    ids.remember('alice', '1', 0);
    expect(ids.get('alice', 999)).toBe('1');
    expect(ids.get('alice', 1000)).toBeUndefined();
    ids.remember('alice', '2', 1000);
    expect(ids.get('alice', 1500)).toBe('2');
  });

  test('over the size bound the oldest name goes first; a renewed name counts as new', () => {
    const ids = new RememberedIds('unit', 60_000, 2);
    ids.remember('a', '1', 0);
    ids.remember('b', '2', 1);
    ids.remember('a', '1', 2); // renewed: b is now the oldest
    ids.remember('c', '3', 3);
    expect([ids.get('a', 4), ids.get('b', 4), ids.get('c', 4)]).toEqual(['1', undefined, '3']);
  });
});
