import cliProgress from 'cli-progress';
import type { Totals } from './state';

/**
 * The progress bar on standard error (cli-progress), drawn only on a terminal and without --quiet:
 * inputs done of all, pages, items, credits charged, cache hits, errors and the request rate. The
 * closing summary line is written whatever the terminal, unless --quiet.
 */
export interface ProgressView {
  /** `requests`: every request this process sent (retries and errors included), for the rate. */
  update(done: number, totals: Totals, requests?: number): void;
  stop(): void;
}

export function progressBar(total: number, opts: { quiet: boolean; stream?: NodeJS.WriteStream }): ProgressView {
  const stream = opts.stream ?? process.stderr;
  if (opts.quiet || !stream.isTTY) return { update: () => undefined, stop: () => undefined };
  const started = Date.now();
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: '{bar} {value}/{total} inputs | {pages} pages | {items} items | {credits} credits | {hits} cache hits | {failed} errors | {rate} req/min',
      hideCursor: true,
      clearOnComplete: true,
      fps: 5,
    },
    cliProgress.Presets.shades_classic,
  );
  const payload = (t: Totals, requests = 0) => {
    const minutes = Math.max((Date.now() - started) / 60_000, 1 / 60);
    return { pages: t.pages, items: t.items, credits: t.credits, hits: t.cacheHits, failed: t.failed, rate: Math.round(requests / minutes) };
  };
  bar.start(total, 0, payload({ pages: 0, items: 0, credits: 0, cacheHits: 0, failed: 0, duplicates: 0, morePages: 0 }));
  return {
    update: (done, totals, requests) => bar.update(done, payload(totals, requests)),
    stop: () => bar.stop(),
  };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The closing line: items, pages, credits charged, cache hits, failed inputs, and what to do next. */
export function summaryLine(t: Totals, inputs: number, extra: { errorsFile?: string; stopped?: string; hint?: string }): string {
  const parts = [
    plural(t.items, 'item'),
    plural(t.pages, 'page'),
    `${plural(t.credits, 'credit')} charged`,
    plural(t.cacheHits, 'cache hit'),
    `${t.failed} of ${plural(inputs, 'input')} failed`,
  ];
  if (t.duplicates) parts.push(`${plural(t.duplicates, 'duplicate')} removed`);
  let line = `social-data: ${parts.join(', ')}`;
  if (t.failed && extra.errorsFile) line += `; errors in ${extra.errorsFile}`;
  if (extra.stopped) line += `; ${extra.stopped}`;
  else if (t.morePages && extra.hint) line += `; ${extra.hint}`;
  return line;
}
