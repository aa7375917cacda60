/**
 * The replay upstream in a process of its own (dev/upstream/child.ts starts it with `fork`): a
 * FakeUpstream with every platform's recorded answers (dev/upstream/replay.ts), driven by messages
 * from its parent. Its CPU work (routing, the 200 ms timers, writing the recorded bodies) is then
 * not in the parent's process.cpuUsage(). Exits when its parent goes.
 *
 * argv: [anyInput ('1' | '0'), hooks module (optional absolute path)]. The hooks module's export
 * `upstreamHooks` names functions `(fake, ...args)` the parent can call by name: routes that need
 * code (a handler), which cannot cross a process boundary.
 */
import { FakeUpstream } from './fake';
import { replayAll } from './replay';
import type { ChildReply, ChildRequest, UpstreamHooks } from './child';

async function main() {
  const [anyInput, hooksModule] = process.argv.slice(2);
  const fake = new FakeUpstream();
  await fake.start();
  replayAll(fake, { anyInput: anyInput === '1' });
  const hooks: UpstreamHooks = hooksModule ? ((await import(hooksModule)) as { upstreamHooks: UpstreamHooks }).upstreamHooks : {};
  /** Requests answered so far (the recorded requests are dropped as they are counted: no growth). */
  let answered = 0;
  const count = () => {
    answered += fake.requests.length;
    fake.requests.length = 0;
    fake.forgetConnections();
    return answered;
  };

  process.on('message', (m: ChildRequest) => {
    const reply = (value: unknown) => process.send!({ id: m.id, value } satisfies ChildReply);
    const fail = (err: unknown) => process.send!({ id: m.id, error: String(err) } satisfies ChildReply);
    try {
      switch (m.type) {
        case 'count':
          return reply(count());
        case 'delay':
          fake.delayMs = m.ms;
          fake.jitterMs = m.jitterMs ?? 0;
          return reply(null);
        case 'cpu':
          return reply(process.cpuUsage());
        case 'hook': {
          const hook = hooks[m.name];
          if (!hook) return fail(new Error(`no upstream hook '${m.name}'`));
          hook(fake, ...m.args);
          return reply(null);
        }
        case 'stop':
          return void fake.stop().then(() => {
            reply(null);
            process.disconnect();
          });
      }
    } catch (err) {
      fail(err);
    }
  });
  process.on('disconnect', () => void fake.stop().finally(() => process.exit(0)));
  process.send!({ id: 0, value: fake.url } satisfies ChildReply);
}

main().catch((err) => {
  console.error('upstream process failed:', err);
  process.exit(1);
});
