import type { FakeUpstream } from './fake';

/**
 * Operation 4's source in the demo: a SAMPLE bulletin made for the demo, not any game's. No public
 * game carries the spec's bulletin (docs/operations/citygame-daily.md), so a deployment names its
 * own source (CITYGAME_SOURCE_URL); the demo does the same with this document, which the replay
 * upstream serves at SAMPLE_PATH, so that operation 4 answers offline like the other twelve. Every
 * text field says it is sample data made for the demo; the date is today's (UTC), so that it reads
 * as "today's bulletin" the way a real source would.
 */
export const CITYGAME_SAMPLE_PATH = '/demo-sample/citygame-bulletin.json';
export const SAMPLE_LABEL = 'sample data made for the demo';

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** The sample document: the five fields at the top level (the default CITYGAME_FIELDS), and a note saying what it is. */
export function sampleBulletin(now = new Date()) {
  return {
    note: `This bulletin is ${SAMPLE_LABEL} (npm run demo): no game publishes it. A deployment names its own source in CITYGAME_SOURCE_URL.`,
    date: now.toISOString().slice(0, 10),
    weekday: WEEKDAYS[now.getUTCDay()]!,
    weather: `Sample weather (${SAMPLE_LABEL}): clear, 21°C`,
    headline: `Sample headline (${SAMPLE_LABEL}): not from any game`,
    tip: `Sample tip (${SAMPLE_LABEL}): set CITYGAME_SOURCE_URL to your own source`,
  };
}

/** Serves the sample bulletin on the replay upstream. */
export function citygameSample(fake: FakeUpstream): void {
  fake.on(CITYGAME_SAMPLE_PATH, () => ({ body: sampleBulletin(), headers: { 'content-type': 'application/json; charset=utf-8' } }));
}
