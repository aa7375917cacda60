import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { JOB_PAGE_CHARGE_PREFIX, KEY_PREFIX, LEDGER_PREFIX, OUTCOME_PREFIX, REQUEST_PREFIX, TEAM_SK, USAGE_PREFIX, credentialKey } from '../shared/db/tables';

/**
 * The bench's own watcher of the DynamoDB commands the process sends (the tests have theirs,
 * test/support/db-sends.ts, which bench code may not import): a middleware on the low-level client
 * (shared/db/client.ts rawDb(), the one every document-client call goes through), at the build step,
 * so it sees each command once (the SDK's retries are below it) with its input already marshalled,
 * and its outcome (a refused conditional write is an error named ConditionalCheckFailedException,
 * a refused transaction TransactionCanceledException).
 *
 * Each item write is classified by its table and key (shared/db/tables.ts), and priced in write
 * units the way DynamoDB bills them: 1 unit per KB of item (rounded up) for UpdateItem, PutItem and
 * DeleteItem, 2 per KB in a transaction; a refused conditional write still costs its units. Item
 * sizes: the cache entry is priced at its real size (attribute names and values as DynamoDB sizes
 * them); every other item the pipeline writes is assumed under 1 KB (an update's billed size is the
 * larger of the item before and after, which the request does not show).
 */
export type WriteKind = 'reservation' | 'refund' | 'team item' | 'key touch' | 'history' | 'usage' | 'ledger' | 'job page' | 'outcome' | 'cache entry' | 'credential' | 'other';

export interface ItemWrite {
  kind: WriteKind;
  /** In a TransactWriteItems. */
  transactional: boolean;
  /** The write changed the item (false: its condition refused it, or its transaction was cancelled). */
  applied: boolean;
  /** Billed size in KB (rounded up). */
  kb: number;
  units: number;
  /** The item's partition key. */
  pk: string;
  /** When the command was sent (epoch ms). */
  at: number;
}

export interface DynamoCall {
  command: string;
  ok: boolean;
  error?: string;
  writes: ItemWrite[];
}

const WRITE_COMMANDS = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'TransactWriteItemsCommand', 'BatchWriteItemCommand']);

/** DynamoDB's size of one attribute value, in bytes (its documented rules). */
function valueBytes(v: AttributeValue): number {
  if (v.S !== undefined) return Buffer.byteLength(v.S);
  if (v.N !== undefined) {
    const digits = v.N.replace(/^[-+]?0*/, '').replace(/[.eE].*$/, '').length || 1;
    return Math.ceil(digits / 2) + 1;
  }
  if (v.B !== undefined) return v.B.length;
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
  if (v.SS) return v.SS.reduce((n, s) => n + Buffer.byteLength(s), 0);
  if (v.NS) return v.NS.reduce((n, s) => n + valueBytes({ N: s }), 0);
  if (v.BS) return v.BS.reduce((n, b) => n + b.length, 0);
  if (v.L) return 3 + v.L.reduce((n, x) => n + 1 + valueBytes(x), 0);
  if (v.M) return 3 + Object.entries(v.M).reduce((n, [k, x]) => n + 1 + Buffer.byteLength(k) + valueBytes(x), 0);
  return 0;
}

export function itemBytes(item: Record<string, AttributeValue>): number {
  return Object.entries(item).reduce((n, [name, v]) => n + Buffer.byteLength(name) + valueBytes(v), 0);
}

const s = (v: AttributeValue | undefined) => v?.S ?? '';

/** What an item write is, by its table and key (and, on the team item, by what its update does). */
function kindOf(tables: { accounts: string; cache: string }, table: string, key: Record<string, AttributeValue>, updateExpression?: string): WriteKind {
  const pk = s(key.pk);
  const sk = s(key.sk);
  if (table === tables.cache) {
    if (pk.startsWith(OUTCOME_PREFIX)) return 'outcome';
    if (pk.startsWith(credentialKey(''))) return 'credential';
    return 'cache entry';
  }
  if (table !== tables.accounts) return 'other';
  if (sk === TEAM_SK) {
    if (/credits\s*=\s*credits\s*-/.test(updateExpression ?? '')) return 'reservation';
    if (/credits\s*=\s*credits\s*\+/.test(updateExpression ?? '')) return 'refund';
    return 'team item';
  }
  if (pk.startsWith(KEY_PREFIX)) return /lastUsedAt/.test(updateExpression ?? '') ? 'key touch' : 'other';
  if (sk.startsWith(REQUEST_PREFIX)) return 'history';
  if (sk.startsWith(USAGE_PREFIX)) return 'usage';
  if (sk.startsWith(LEDGER_PREFIX)) return 'ledger';
  if (sk.startsWith(JOB_PAGE_CHARGE_PREFIX)) return 'job page';
  return 'other';
}

type Input = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a marshalled command input

/** The item writes of one command (before its outcome is known: applied = true). */
function writesOf(tables: { accounts: string; cache: string }, command: string, input: Input): ItemWrite[] {
  const one = (table: string, op: 'Put' | 'Update' | 'Delete' | 'ConditionCheck', body: Input, transactional: boolean): ItemWrite => {
    const key = (op === 'Put' ? body.Item : body.Key) as Record<string, AttributeValue>;
    const kind = kindOf(tables, table, key, body.UpdateExpression);
    const kb = kind === 'cache entry' && op === 'Put' ? Math.max(1, Math.ceil(itemBytes(body.Item) / 1024)) : 1;
    return { kind, transactional, applied: true, kb, units: kb * (transactional ? 2 : 1), pk: s(key.pk), at: Date.now() };
  };
  switch (command) {
    case 'PutItemCommand':
      return [one(input.TableName, 'Put', input, false)];
    case 'UpdateItemCommand':
      return [one(input.TableName, 'Update', input, false)];
    case 'DeleteItemCommand':
      return [one(input.TableName, 'Delete', input, false)];
    case 'TransactWriteItemsCommand':
      return (input.TransactItems as Input[]).map((t) => {
        const [op, body] = Object.entries(t)[0] as ['Put' | 'Update' | 'Delete' | 'ConditionCheck', Input];
        return one(body.TableName, op, body, true);
      });
    case 'BatchWriteItemCommand':
      return Object.entries(input.RequestItems as Record<string, Input[]>).flatMap(([table, requests]) =>
        requests.map((r) => (r.PutRequest ? one(table, 'Put', r.PutRequest, false) : one(table, 'Delete', r.DeleteRequest, false))),
      );
    default:
      return [];
  }
}

export interface DynamoWatch {
  /** Every command sent since the watch began. */
  readonly calls: DynamoCall[];
  /** The calls since `mark` (a previous `calls.length`). */
  since(mark: number): DynamoCall[];
}

/** Starts watching every command `client` sends (call once, before the traffic to watch). */
export function watchDynamo(client: DynamoDBClient, tables: { accounts: string; cache: string }): DynamoWatch {
  const calls: DynamoCall[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName ?? '');
      const call: DynamoCall = { command, ok: true, writes: WRITE_COMMANDS.has(command) ? writesOf(tables, command, args.input as Input) : [] };
      calls.push(call);
      try {
        return await next(args);
      } catch (err) {
        call.ok = false;
        call.error = (err as Error).name;
        // A refused condition or a cancelled transaction writes nothing; its units are billed still.
        for (const w of call.writes) w.applied = false;
        throw err;
      }
    },
    { step: 'build', name: 'benchWatchDynamo' },
  );
  return { calls, since: (mark) => calls.slice(mark) };
}

/** One answer's DynamoDB writes, summed. */
export interface WriteSummary {
  /** Item writes outside a transaction that changed an item, by kind (key touch left out). */
  plain: WriteKind[];
  /** Transactions that were sent (applied or not), with their items' kinds. */
  transactions: { kinds: WriteKind[]; applied: boolean; units: number }[];
  /** Conditional writes refused (outside a transaction): no item changed, units billed. */
  refused: WriteKind[];
  /** The key's lastUsedAt (the authorizer, at most once a minute): kept apart from the answer's. */
  keyTouches: number;
  /** Write units of the answer (key touch left out). */
  units: number;
  /** Of which the cache entry's (its real size). */
  cacheKb: number;
}

export function summarize(calls: DynamoCall[]): WriteSummary {
  const out: WriteSummary = { plain: [], transactions: [], refused: [], keyTouches: 0, units: 0, cacheKb: 0 };
  for (const c of calls) {
    if (!c.writes.length) continue;
    if (c.command === 'TransactWriteItemsCommand') {
      const units = c.writes.reduce((n, w) => n + w.units, 0);
      out.transactions.push({ kinds: c.writes.map((w) => w.kind), applied: c.ok, units });
      out.units += units;
      out.cacheKb += c.writes.filter((w) => w.kind === 'cache entry').reduce((n, w) => n + w.kb, 0);
      continue;
    }
    for (const w of c.writes) {
      if (w.kind === 'key touch') {
        if (w.applied) out.keyTouches += 1;
        continue;
      }
      out.units += w.units;
      if (w.kind === 'cache entry') out.cacheKb += w.kb;
      (w.applied ? out.plain : out.refused).push(w.kind);
    }
  }
  return out;
}

const MONEY: readonly WriteKind[] = ['reservation', 'refund'];
/** The record's plain writes (everything but the money writes on the team item). */
export const recordWrites = (w: WriteSummary) => w.plain.filter((k) => !MONEY.includes(k));
export const moneyWrites = (w: WriteSummary) => w.plain.filter((k) => MONEY.includes(k));

/** "reservation + tx(ledger, history, cache entry 2 KB) + 2 plain (outcome, usage)" */
export function describeWrites(w: WriteSummary): string {
  const parts: string[] = [];
  for (const k of moneyWrites(w)) parts.push(k);
  for (const t of w.transactions) parts.push(`tx(${t.kinds.map((k) => (k === 'cache entry' ? `cache ${w.cacheKb} KB` : k)).join(', ')})${t.applied ? '' : ' cancelled'}`);
  const rec = recordWrites(w);
  parts.push(`${rec.length} plain${rec.length ? ` (${rec.join(', ')})` : ''}`);
  if (w.refused.length) parts.push(`refused: ${w.refused.join(', ')}`);
  return parts.join(' + ');
}
