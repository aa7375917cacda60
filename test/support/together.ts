import type { FakeReply, FakeUpstream, RecordedRequest } from '../../dev/upstream/fake';

/**
 * Answers `paths` on the fake upstream, each reply held until every one of them has arrived: when
 * `met()`, the requests were in flight at the same time (one round trip), however slow the machine.
 * Requests sent one after the other are each held `giveUpMs` at most, and `met()` stays false.
 */
export function answeredTogether(fake: FakeUpstream, replies: Record<string, FakeReply | ((req: RecordedRequest) => FakeReply)>, giveUpMs = 5000): { met: () => boolean } {
  const waiting = new Set(Object.keys(replies));
  let met = false;
  let gaveUp = false;
  let release!: () => void;
  const all = new Promise<void>((resolve) => (release = resolve));
  for (const [path, reply] of Object.entries(replies)) {
    fake.on(path, async (req) => {
      waiting.delete(path);
      if (waiting.size === 0 && !gaveUp) {
        met = true;
        release();
      }
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([all, new Promise<void>((resolve) => (timer = setTimeout(() => ((gaveUp = !met), resolve()), giveUpMs)))]);
      clearTimeout(timer);
      return typeof reply === 'function' ? reply(req) : reply;
    });
  }
  return { met: () => met };
}
