import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants as zlib } from 'node:zlib';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { config } from './runtime/config';
import { db } from './db/client';

/**
 * The result cache, shared by all teams. The key is the operation plus its normalized inputs
 * (so `@alice`, `alice` and alice's profile URL are one entry). Payloads are brotli-compressed;
 * the TTL attribute is fetch time + 30 days, and expiry is checked on read as well because
 * DynamoDB deletes expired items lazily.
 */
export const MAX_ITEM_BYTES = 400 * 1024;
/** Room for the key and the other attributes of the item. */
const ITEM_OVERHEAD_BYTES = 2 * 1024;

/**
 * Brotli by zlib's callback API: the work runs on libuv's thread pool, not on the event loop, so a
 * process answering many requests at once (the local gateway under load, a job's inputs) goes on
 * answering the others meanwhile.
 */
const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

export interface CachedResult {
  data: Record<string, unknown>;
  fetchedAt: number;
  /** The request whose live answer wrote it (a bulk job's retried page tells its own earlier charge by it). */
  requestId?: string;
}

/** Stable JSON of the normalized input: key order never changes the cache key. */
export function cacheKey(operationId: string, input: Record<string, unknown>): string {
  return `${operationId}#${stableJson(input)}`;
}

function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${stableJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

export async function readCache(key: string, maxAgeSeconds: number, now = Date.now()): Promise<CachedResult | null> {
  const res = await db().send(new GetCommand({ TableName: config.cacheTable, Key: { pk: key } }));
  const item = res.Item;
  if (!item) return null;
  const fetchedAt = Number(item.fetchedAt);
  const expiresAt = Number(item.expiresAt);
  if (!Number.isFinite(fetchedAt) || fetchedAt < now - maxAgeSeconds * 1000) return null;
  if (!Number.isFinite(expiresAt) || expiresAt * 1000 <= now) return null;
  const data = await decode(item.body);
  return data ? { data, fetchedAt, ...(typeof item.requestId === 'string' ? { requestId: item.requestId } : {}) } : null;
}

/** The stored payload, or null when it cannot be read (corrupt, truncated, not an object): a miss, never an error. */
async function decode(body: unknown): Promise<Record<string, unknown> | null> {
  if (!(body instanceof Uint8Array)) return null;
  try {
    const data: unknown = JSON.parse((await decompress(body)).toString('utf8'));
    return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The item to write for a fresh result, or null when it is too large for one item even compressed. */
export async function cacheItem(key: string, operationId: string, data: object, fetchedAt: number, requestId?: string): Promise<Record<string, unknown> | null> {
  const body = await compress(Buffer.from(JSON.stringify(data), 'utf8'), {
    params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT },
  });
  if (body.length + Buffer.byteLength(key) + ITEM_OVERHEAD_BYTES > MAX_ITEM_BYTES) return null;
  return {
    pk: key,
    op: operationId,
    body,
    fetchedAt,
    expiresAt: Math.floor(fetchedAt / 1000) + config.cacheTtlSeconds,
    ...(requestId ? { requestId } : {}),
  };
}
