import { allInOrder } from '../../../shared/scrape/concurrent';

/** allInOrder (shared/scrape/concurrent.ts): calls settle together; the first failure in the given order wins. */
const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));
const failAfter = (ms: number, message: string) => new Promise<never>((_, reject) => setTimeout(() => reject(new Error(message)), ms));

describe('allInOrder', () => {
  test('the values in the order given, whatever finished first', async () => {
    expect(await allInOrder([after(30, 'account'), after(5, 2), Promise.resolve([true])])).toEqual(['account', 2, [true]]);
  });

  test('the first failure in the given order is thrown, even when a later call failed first', async () => {
    await expect(allInOrder([failAfter(30, 'account not found'), failAfter(1, 'timeline failed')])).rejects.toThrow('account not found');
  });

  test('a failure waits for the calls still running (none is left unobserved)', async () => {
    let slowDone = false;
    const slow = after(40, 'x').then((x) => {
      slowDone = true;
      return x;
    });
    await expect(allInOrder([Promise.reject(new Error('first')), slow])).rejects.toThrow('first');
    expect(slowDone).toBe(true);
  });

  test('a later failure is thrown when the earlier calls succeed', async () => {
    await expect(allInOrder([after(1, 'ok'), failAfter(5, 'pinned failed')])).rejects.toThrow('pinned failed');
  });
});
