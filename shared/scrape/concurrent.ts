/**
 * Upstream calls that go out together but whose failures have an order of importance: every call
 * is settled (none is left running unobserved), then the first failure *in the order given* is
 * thrown, so "the account does not exist" wins over "its timeline failed", whatever finished first.
 */
export async function allInOrder<T extends readonly unknown[]>(calls: readonly [...{ [K in keyof T]: Promise<T[K]> }]): Promise<T> {
  const settled = await Promise.allSettled(calls);
  for (const r of settled) if (r.status === 'rejected') throw r.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
