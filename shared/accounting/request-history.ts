import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import { config } from '../runtime/config';
import { db, itemUpdate } from '../db/client';
import { REQUEST_PREFIX, teamPk } from '../db/tables';
import { ERROR_STATUS, type ErrorCode, badCursor } from '../http/errors';
import { seal, unsealJson } from '../http/cursor-seal';

/**
 * A team's request history: one item per request that reached an operation's function with a
 * known team, whatever it answered (live result, cache hit, error), kept 7 days (TTL; readers skip
 * older ones too, as TTL deletes late). Written once per request, after its answer is decided: a
 * live result's item rides in its settle transaction (./ledger.ts: it exists exactly when the
 * charge does), any other answer's is one of the plain writes of its record (./record.ts), and a
 * failure to write it never fails the request.
 *
 *   TEAM#<teamId> / REQ#<start time>#<requestId>   time, operation, keyId, status, code, credits, cached, ms, requestId
 *
 * `credits` is written only when the answer cost some (a live result: 1); a free answer's item has
 * none, and reads as 0.
 *
 * Read newest first, paged by an opaque cursor (sealed with CURSOR_SECRET, bound to the team and
 * the filters), filterable by operation, status and source.
 */
export const HISTORY_DAYS = 7;
export const HISTORY_PAGE = { default: 50, max: 100 } as const;

/** What one answered request leaves behind (usage counter and history). */
export interface Answered {
  teamId: string;
  /** The key that made the request (the authorizer's context); absent only for an event without it. */
  keyId?: string;
  /** A monitor's poll: its history item says `source: 'monitor'` and the monitor's id. */
  monitorId?: string;
  /** A page of a bulk job's input: its history item says `source: 'job'` and the job's id. */
  jobId?: string;
  operation: string;
  requestId: string;
  status: number;
  /** The error code; null for a result (live or cached). */
  code: ErrorCode | null;
  credits: number;
  cached: boolean;
  /** From the function's start until the answer was decided (its record not included). */
  ms: number;
  /** When it was answered (epoch ms). */
  time: number;
}

/** Keyed by the time the request started and its id: one item per request. */
const historySk = (a: Pick<Answered, 'time' | 'ms' | 'requestId'>) => `${REQUEST_PREFIX}${new Date(a.time - Math.max(0, Math.round(a.ms))).toISOString()}#${a.requestId}`;

export function historyItem(a: Answered): Record<string, unknown> {
  return {
    pk: teamPk(a.teamId),
    sk: historySk(a),
    time: new Date(a.time).toISOString(),
    operation: a.operation,
    ...(a.keyId ? { keyId: a.keyId } : {}),
    ...(a.monitorId ? { source: 'monitor', monitorId: a.monitorId } : {}),
    ...(a.jobId ? { source: 'job', jobId: a.jobId } : {}),
    status: a.status,
    ...(a.code ? { code: a.code } : {}),
    // Absent for a free answer (read as 0: `record`): see above.
    ...(a.credits ? { credits: a.credits } : {}),
    cached: a.cached,
    ms: Math.max(0, Math.round(a.ms)),
    requestId: a.requestId,
    expiresAt: Math.floor(a.time / 1000) + HISTORY_DAYS * 86_400,
  };
}

/** The attributes a history item may lack (a retried request's earlier item may carry them). */
const OPTIONAL_ATTRIBUTES = ['keyId', 'code', 'credits', 'source', 'monitorId', 'jobId'] as const;

/**
 * The history item as an UpdateItem that writes it whole (a scraping function has no PutItem on the
 * accounts table: infra/stack.ts), creating it or replacing this very request's earlier item (a
 * retry), never an item of another request.
 */
export function historyUpdate(a: Answered) {
  return itemUpdate(config.accountsTable, historyItem(a), {
    absent: OPTIONAL_ATTRIBUTES,
    condition: { expression: 'attribute_not_exists(pk) OR requestId = :historyRequestId', values: { ':historyRequestId': a.requestId } },
  });
}

/** One request as recorded (GET /v1/account/requests adds the key's name). */
export interface HistoryRecord {
  time: string;
  operation: string;
  keyId: string | null;
  status: number;
  code: ErrorCode | null;
  credits: number;
  cached: boolean;
  ms: number;
  requestId: string;
  /** Present on a monitor's poll and on a bulk job's page. */
  source?: 'monitor' | 'job';
  monitorId?: string;
  jobId?: string;
}

export interface HistoryPage {
  requests: HistoryRecord[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  cursor: string | null;
  hasMore: boolean;
}

/** `status`: one HTTP status, or `error` for every error answer (status 400 and above). */
export type StatusFilter = number | 'error';
/** `request`: made with a key (no `source` attribute); `monitor`: a monitor's poll; `job`: a bulk job's page. */
export type SourceFilter = 'request' | 'monitor' | 'job';
export interface RequestsQuery {
  operation?: string;
  status?: StatusFilter;
  source?: SourceFilter;
  limit: number;
  cursor?: string;
}

const MAX_CURSOR_CHARS = 600;
/** Bounded work per page: a rare filter stops after this many DynamoDB pages, with a cursor to go on. */
const MAX_QUERIES = 5;

function encodeCursor(teamId: string, q: RequestsQuery, sk: string): string {
  return seal(JSON.stringify({ v: 1, t: teamId, o: q.operation ?? null, s: q.status ?? null, ...(q.source ? { r: q.source } : {}), k: sk }));
}

/** The sort key to continue after; 400 for a cursor that is not ours, of another team, or of other filters. */
function decodeCursor(teamId: string, q: RequestsQuery, raw: string): string {
  const c = unsealJson(raw, MAX_CURSOR_CHARS);
  if (!c || c.v !== 1 || typeof c.k !== 'string' || !c.k.startsWith(REQUEST_PREFIX)) throw badCursor('history cursor malformed or not sealed by us');
  if (c.t !== teamId) throw badCursor('history cursor of another team');
  if (c.o !== (q.operation ?? null) || c.s !== (q.status ?? null) || (c.r ?? null) !== (q.source ?? null)) throw badCursor('history cursor of other filters');
  return c.k;
}

/** The team's requests of the last 7 days, newest first. */
export async function requestHistory(teamId: string, q: RequestsQuery, now = Date.now()): Promise<HistoryPage> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {
    ':p': teamPk(teamId),
    ':from': `${REQUEST_PREFIX}${new Date(now - HISTORY_DAYS * 86_400_000).toISOString()}`,
    ':to': `${REQUEST_PREFIX}\uffff`,
  };
  const filters: string[] = [];
  if (q.operation) {
    names['#op'] = 'operation';
    values[':op'] = q.operation;
    filters.push('#op = :op');
  }
  if (q.status !== undefined) {
    names['#st'] = 'status';
    values[':st'] = q.status === 'error' ? 400 : q.status;
    filters.push(q.status === 'error' ? '#st >= :st' : '#st = :st');
  }
  if (q.source) {
    names['#src'] = 'source';
    if (q.source === 'monitor' || q.source === 'job') {
      values[':src'] = q.source;
      filters.push('#src = :src');
    } else filters.push('attribute_not_exists(#src)');
  }
  const found: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  let round = 0;
  const pages = paginateQuery(
    {
      client: db(),
      // Without a filter every item read is returned: one more than the page tells whether more follow.
      pageSize: filters.length ? 4 * q.limit : q.limit + 1,
      ...(q.cursor ? { startingToken: { pk: teamPk(teamId), sk: decodeCursor(teamId, q, q.cursor) } } : {}),
    },
    {
      TableName: config.accountsTable,
      KeyConditionExpression: 'pk = :p AND sk BETWEEN :from AND :to',
      ...(filters.length ? { FilterExpression: filters.join(' AND '), ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
      ScanIndexForward: false,
    },
  );
  for await (const res of pages) {
    found.push(...(res.Items ?? []));
    start = res.LastEvaluatedKey;
    if (++round >= MAX_QUERIES || found.length > q.limit) break;
  }
  const page = found.slice(0, q.limit);
  // Where the next page starts: after the last item shown when more were found, else where the
  // reading stopped (a rare filter after MAX_QUERIES reads), else nowhere.
  const after = found.length > q.limit ? String(page.at(-1)!.sk) : start ? String(start.sk) : null;
  return {
    requests: page.map(record),
    cursor: after ? encodeCursor(teamId, q, after) : null,
    hasMore: after !== null,
  };
}

function record(i: Record<string, unknown>): HistoryRecord {
  const keyId = typeof i.keyId === 'string' ? i.keyId : null;
  const code = typeof i.code === 'string' && i.code in ERROR_STATUS ? (i.code as ErrorCode) : null;
  return {
    time: String(i.time),
    operation: String(i.operation),
    keyId,
    status: Number(i.status),
    code,
    credits: Number(i.credits ?? 0),
    cached: i.cached === true,
    ms: Number(i.ms ?? 0),
    requestId: String(i.requestId),
    ...(i.source === 'monitor' && typeof i.monitorId === 'string' ? { source: 'monitor' as const, monitorId: i.monitorId } : {}),
    ...(i.source === 'job' && typeof i.jobId === 'string' ? { source: 'job' as const, jobId: i.jobId } : {}),
  };
}
