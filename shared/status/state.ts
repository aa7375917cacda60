import type { CanaryRecord } from './canary-record';
import type { Figures } from './outcomes';

/**
 * The rules that turn an operation's figures into its state on GET /v1/status, written once (the
 * docs/status.md lists them; test/status/state.test.ts checks each):
 *
 *   not configured  the operation has no source (planned in the operation table, or its source is
 *                   configuration the deployment does not give: `sourceVariable` unset)
 *   down            >= DOWN_SHARE of the source answers of the last 15 minutes failed (503), or, with
 *                   fewer than MIN_SAMPLE of them, the latest canary (<= CANARY_FRESH_MS old) failed
 *                   DOWN_AFTER_CANARY_FAILURES times in a row
 *   degraded        > DEGRADED_SHARE of them failed; or the traffic looks fine (or is too thin) but the
 *                   latest canary failed or reported schema drift
 *   operational     at most DEGRADED_SHARE failed (with MIN_SAMPLE or more), or too little traffic and
 *                   the latest canary passed without drift
 *   unknown         fewer than MIN_SAMPLE source answers and no canary run in the last CANARY_FRESH_MS
 *
 * A source answer is one that says something about the source: every answer except cache hits and
 * the caller's own refusals (401, 402, 422, 429). A 404 or a 400 is the source's answer to the
 * caller, not a failure of ours; every 503 (blocked, unexpected shape, source down, our capacity) is.
 */
export const STATUS_RULES = {
  MIN_SAMPLE: 5,
  DEGRADED_SHARE: 0.1,
  DOWN_SHARE: 0.5,
  CANARY_FRESH_MS: 30 * 60_000,
  DOWN_AFTER_CANARY_FAILURES: 2,
} as const;

export const STATES = ['operational', 'degraded', 'down', 'unknown', 'not configured'] as const;
export type State = (typeof STATES)[number];

const CALLERS_OWN = new Set(['401', '402', '422', '429']);

/** Answers that reached the source, and those of them that failed. */
export function sourceAnswers(f: Figures): { sample: number; failures: number } {
  let sample = 0;
  let failures = 0;
  for (const [status, n] of Object.entries(f.byStatus)) {
    if (CALLERS_OWN.has(status)) continue;
    sample += n;
    if (Number(status) >= 500) failures += n;
  }
  return { sample: sample - f.cacheHits, failures };
}

/** Success share of all answers: a 4xx is the caller's answer, only a 5xx is a failure of ours. Null without answers. */
export function successShare(f: Figures): number | null {
  if (!f.answers) return null;
  const failed = Object.entries(f.byStatus).reduce((sum, [status, n]) => (Number(status) >= 500 ? sum + n : sum), 0);
  return (f.answers - failed) / f.answers;
}

export function stateOf(configured: boolean, last15m: Figures, canary: CanaryRecord | null, now: number): { state: State; reason: string } {
  const R = STATUS_RULES;
  if (!configured) return { state: 'not configured', reason: 'the operation has no source in this deployment' };
  const fresh = canary && now - canary.at <= R.CANARY_FRESH_MS ? canary : null;
  const canaryTrouble = fresh && (!fresh.ok ? `the latest canary failed (${fresh.code ?? 'error'})` : fresh.missing.length || fresh.newlyNull.length ? 'the latest canary reported schema drift' : null);
  const { sample, failures } = sourceAnswers(last15m);
  if (sample >= R.MIN_SAMPLE) {
    const share = failures / sample;
    const figures = `${failures} of ${sample} source answers failed in 15 minutes`;
    if (share >= R.DOWN_SHARE) return { state: 'down', reason: figures };
    if (share > R.DEGRADED_SHARE) return { state: 'degraded', reason: figures };
    if (canaryTrouble) return { state: 'degraded', reason: `${figures}, but ${canaryTrouble}` };
    return { state: 'operational', reason: figures };
  }
  if (!fresh) return { state: 'unknown', reason: `fewer than ${R.MIN_SAMPLE} source answers in 15 minutes and no recent canary` };
  if (!fresh.ok && fresh.consecutiveFailures >= R.DOWN_AFTER_CANARY_FAILURES) return { state: 'down', reason: `the canary failed ${fresh.consecutiveFailures} times in a row` };
  if (canaryTrouble) return { state: 'degraded', reason: canaryTrouble };
  return { state: 'operational', reason: 'little traffic; the latest canary passed' };
}
