import Table from 'cli-table3';
import type { CreditsReport, Monitor, RequestsReport, UsageReport } from '../client';
import { UsageError } from './usage-error';

/**
 * How the account reads (`credits`, `usage`, `requests`) and `monitors list` print: a table for a
 * person at a terminal, JSON (the API's `data` as it is) for a program. `--format table|json` says
 * which; without it, a table when standard output is a terminal and nothing goes to a file, else
 * JSON, so that a pipe or a script keeps getting JSON. `--columns a,b,c` chooses a table's columns
 * (and an operation's CSV columns: program.ts), in that order.
 */
export const VIEW_FORMATS = ['table', 'json'] as const;
export type ViewFormat = (typeof VIEW_FORMATS)[number];

export function viewFormat(flag: ViewFormat | undefined, out: string | undefined, isTty = Boolean(process.stdout.isTTY)): ViewFormat {
  return flag ?? (out === undefined && isTty ? 'table' : 'json');
}

/** `--columns a,b,c`: the names, trimmed, none empty, none twice. */
export function parseColumns(value: string): string[] {
  const names = value.split(',').map((n) => n.trim());
  if (names.some((n) => n === '')) throw new UsageError(`--columns ${value}: column names separated by commas, none empty`);
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  if (twice.length) throw new UsageError(`--columns: ${twice[0]} named twice`);
  return names;
}

/** The columns asked for, in their order, each one of `available`; all of them when none was asked for. */
export function chooseColumns(available: readonly string[], wanted: string[] | undefined): string[] {
  if (!wanted) return [...available];
  const unknown = wanted.filter((n) => !available.includes(n));
  if (unknown.length) throw new UsageError(`--columns: no column ${unknown.join(', ')} (the columns: ${available.join(', ')})`);
  return wanted;
}

/** A table: the columns it can show, those shown without --columns, its rows, and lines to print before and after it. */
export interface View {
  columns: readonly string[];
  shown?: readonly string[];
  rows: readonly object[];
  before?: string[];
  after?: string[];
}

const cell = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

export function renderView(view: View, wanted?: string[]): string {
  const columns = chooseColumns(view.columns, wanted ?? (view.shown ? [...view.shown] : undefined));
  const table = new Table({ head: columns, style: { head: [], border: [] } });
  for (const row of view.rows) table.push(columns.map((c) => cell((row as Record<string, unknown>)[c])));
  const empty = view.rows.length === 0 ? ['(none)'] : [];
  return [...(view.before ?? []), table.toString(), ...empty, ...(view.after ?? [])].join('\n') + '\n';
}

const percent = (share: unknown) => (typeof share === 'number' ? `${Math.round(share * 100)}%` : '');

export function creditsView(data: CreditsReport): View {
  return {
    before: [`Balance: ${data.balance.toLocaleString('en-US')} credits. Latest charges:`],
    columns: ['time', 'operation', 'credits', 'requestId'],
    rows: data.charges,
  };
}

export function usageView(data: UsageReport): View {
  type Figures = UsageReport['totals'];
  const row = (operation: string, f: Figures) => ({ operation, requests: f.requests, live: f.live, hits: f.hits, errors: f.errorCount, credits: f.credits, cacheHitShare: percent(f.cacheHitShare) });
  const days = data.days.length;
  return {
    before: [`Answers per operation over the last ${days} day${days === 1 ? '' : 's'} (per day: --format json):`],
    columns: ['operation', 'requests', 'live', 'hits', 'errors', 'credits', 'cacheHitShare'],
    rows: [...Object.entries(data.byOperation).map(([op, f]) => row(op, f)), row('(all)', data.totals)],
  };
}

export const REQUEST_COLUMNS = ['time', 'operation', 'status', 'code', 'credits', 'cached', 'ms', 'keyName', 'requestId'] as const;

export function requestsView(requests: RequestsReport['requests'], more?: { cursor: string | null; hasMore: boolean }): View {
  return {
    columns: [...REQUEST_COLUMNS, 'keyId'],
    shown: REQUEST_COLUMNS,
    rows: requests,
    after: more?.hasMore ? ['More: --all for every page of the 7 days.'] : [],
  };
}

export function monitorsView(monitors: Monitor[]): View {
  return {
    columns: ['id', 'operation', 'params', 'intervalSeconds', 'status', 'pausedReason', 'lastPollAt', 'lastPollStatus', 'nextPollAt', 'webhookUrl', 'createdAt', 'updatedAt'],
    shown: ['id', 'operation', 'params', 'intervalSeconds', 'status', 'lastPollAt', 'lastPollStatus', 'webhookUrl'],
    rows: monitors.map((m) => ({ ...m, params: Object.entries(m.params ?? {}).map(([k, v]) => `${k}=${v}`).join(' ') })),
  };
}
