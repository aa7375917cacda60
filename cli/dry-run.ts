import { apiBase } from '../client';
import { type RunOptions, tasksOf } from './run';
import { COST, COST_RULE } from './table';

/**
 * --dry-run: the requests the run would send first (one per input; the key is never printed) and the
 * most credits the run could cost, and nothing sent. With --all an input's later pages depend on the
 * answers: the bound is --max-pages pages an input, or none without it.
 */
export function dryRun(opts: Omit<RunOptions, 'apiUrl' | 'apiKey'> & { apiUrl?: string }): string {
  const { command } = opts;
  const tasks = tasksOf(opts);
  const base = opts.apiUrl ? apiBase(opts.apiUrl) : undefined;
  const lines: string[] = [];
  let sent = 0;
  for (const task of tasks) {
    const label = task.input === undefined ? '' : `${task.input}: `;
    if (task.invalid) {
      lines.push(`# not sent, ${label}${task.invalid.code}: ${(task.invalid.details ?? []).map((d) => `${d.path}: ${d.message}`).join('; ') || task.invalid.message}`);
      continue;
    }
    const query = new URLSearchParams(task.query);
    if (opts.cacheMaxAge) query.set('cache_max_age', opts.cacheMaxAge);
    const path = `${command.op.path}${query.size ? `?${query}` : ''}`;
    lines.push(`GET ${base ? new URL(path.slice(1), base).href : path}`);
    sent += 1;
  }
  const paged = opts.all && command.cursorParam !== undefined;
  const perInput = paged ? opts.maxPages : 1;
  const requests = `${sent} request${sent === 1 ? '' : 's'}`;
  let cost: string;
  if (perInput !== undefined) {
    const most = sent * perInput * COST;
    cost = paged ? `${requests} for the first pages, then each input's cursor to at most ${perInput} pages: at most ${most} credits` : `${requests}: at most ${most} credit${most === 1 ? '' : 's'}`;
  } else {
    const about = opts.maxItems !== undefined && command.op.pageSize ? ` (--max-items ${opts.maxItems} is about ${Math.ceil(opts.maxItems / command.op.pageSize)} pages of ${command.op.pageSize}, but pages with fewer new items make it more)` : '';
    cost = `${requests} for the first pages (at least ${sent * COST} credits), then every cursor to the end: no upper bound without --max-pages${about}`;
  }
  lines.push(`# dry run: ${cost}; ${COST_RULE}. Nothing was sent.`);
  return `${lines.join('\n')}\n`;
}
