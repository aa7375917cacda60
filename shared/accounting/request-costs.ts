/**
 * What each path of an operation's request costs in DynamoDB: calls, sequential round trips (the
 * authorizer's included) and item writes. Stated once, here: `npm run docs` writes the table of
 * docs/credits.md ("DynamoDB round trips and writes per request") from it, and `npm run bench`
 * compares what it measures with it. A change of the pipeline that changes a figure changes it here.
 */
export type RequestPathId = 'hit' | 'live' | 'miss' | 'invalid' | 'refused' | 'errorAfterReservation';

export interface RequestCost {
  id: RequestPathId;
  /** The request, as the table's first column names it (Markdown). */
  request: string;
  calls: number;
  trips: number;
  /** What the sequential round trips are. */
  tripSteps: string;
  writes: {
    /** The conditional UpdateItem that takes the credit. */
    reservation: boolean;
    /** The UpdateItem that gives it back. */
    refund: boolean;
    /** Items of the one settle transaction (0: no transaction). */
    transactionItems: number;
    /** Plain item writes of the answer's record (the key's lastUsedAt apart). */
    plain: number;
    note?: string;
  };
}

const KEY_AND_BALANCE = 'key and balance';

export const REQUEST_COSTS: readonly RequestCost[] = [
  {
    id: 'hit',
    request: 'cache hit',
    calls: 5,
    trips: 3,
    tripSteps: `${KEY_AND_BALANCE} (one BatchGetItem, a key the authorizer knows); the cache read; the record`,
    writes: { reservation: false, refund: false, transactionItems: 0, plain: 3 },
  },
  {
    id: 'live',
    request: 'live, no `cache_max_age`',
    calls: 5,
    trips: 4,
    tripSteps: `${KEY_AND_BALANCE}; the reservation (the scrape beside it when the team has 200 credits or more); the settle transaction; the record`,
    writes: { reservation: true, refund: false, transactionItems: 3, plain: 2 },
  },
  {
    id: 'miss',
    request: 'live, `cache_max_age` given (a miss)',
    calls: 6,
    trips: 5,
    tripSteps: 'as above, with the cache read before the reservation',
    writes: { reservation: true, refund: false, transactionItems: 3, plain: 2 },
  },
  {
    id: 'invalid',
    request: '422',
    calls: 4,
    trips: 2,
    tripSteps: `${KEY_AND_BALANCE}; the record`,
    writes: { reservation: false, refund: false, transactionItems: 0, plain: 3 },
  },
  {
    id: 'refused',
    request: '402',
    calls: 5,
    trips: 3,
    tripSteps: `${KEY_AND_BALANCE}; the refused reservation (its balance shown); the record`,
    writes: { reservation: false, refund: false, transactionItems: 0, plain: 3, note: 'the refused update writes nothing' },
  },
  {
    id: 'errorAfterReservation',
    request: '404 or 503 after a reservation',
    calls: 6,
    trips: 4,
    tripSteps: `${KEY_AND_BALANCE}; reservation; refund; the record`,
    writes: { reservation: true, refund: true, transactionItems: 0, plain: 3 },
  },
];

export const requestCost = (id: RequestPathId): RequestCost => REQUEST_COSTS.find((c) => c.id === id)!;

/** A path's writes in words: "reservation, 1 transaction of 3 items, 2 plain". */
export function describeCostWrites(w: RequestCost['writes']): string {
  const parts = [
    ...(w.reservation ? ['reservation'] : []),
    ...(w.refund ? ['refund'] : []),
    ...(w.transactionItems ? [`1 transaction of ${w.transactionItems} items`] : []),
    `${w.plain} plain`,
  ];
  return `${parts.join(', ')}${w.note ? ` (${w.note})` : ''}`;
}
