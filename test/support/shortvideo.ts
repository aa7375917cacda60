import { startCold } from '../../shared/scrape/warm';
import { shortvideo } from '../../dev/upstream/replay';
import type { Harness } from './harness';

/** Before each shortvideo gateway test: a cold function, and the recorded answers for any input. */
export function coldShortvideoReplay(harness: Harness, options: { cold: boolean } = { cold: true }): void {
  if (options.cold) startCold('shortvideo');
  shortvideo(harness.fake, { anyInput: true });
}
