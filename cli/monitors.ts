import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { SocialDataClient, type NewMonitor } from '../client';
import { MONITORABLE_IDS } from '../shared/api/monitor-kinds';
import { UsageError } from './usage-error';
import { VIEW_FORMATS, monitorsView, parseColumns, renderView, viewFormat, type View, type ViewFormat } from './view';

/**
 * `social-data monitors …`: the team's monitors (docs/monitors.md), free, with the key, through the
 * typed client's `api.monitors.*`. Each sub-command prints the API's `data` as JSON; `create` and
 * `rotate-secret` print the signing secret, which the API shows this once (a reminder goes to
 * standard error). Errors are the API's (a 422 with its details), exit 1; a malformed command line
 * is exit 2 and sends nothing.
 */
export interface MonitorsContext {
  /** The client of the command's --api-url and --api-key (or their variables); a UsageError without them. */
  client: (command: Command) => SocialDataClient;
  done: () => void;
}

/** `--param handle=bsky.app` (repeatable) into the operation's query parameters. */
function collectParam(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new UsageError(`--param ${value}: give name=value`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

const seconds = (flag: string) => (value: string) => {
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} ${value}: a whole number of seconds`);
  return Number(value);
};

type Flags = { out?: string; operation?: NewMonitor['operation']; param?: Record<string, string>; interval?: number; webhookUrl?: string; format?: ViewFormat; columns?: string[] };
type Call = (api: SocialDataClient['monitors'], args: string[], flags: Flags) => Promise<{ data: unknown }>;

export function addMonitorCommands(program: Command, ctx: MonitorsContext): void {
  const monitors = program.command('monitors').description("The team's monitors: a request repeated at an interval, with signed webhooks of what changed (free).");
  /** Commander calls an action with the arguments, the options, then the command. */
  const act =
    (call: Call, showsSecret = false, view?: (data: unknown) => View) =>
    async (...all: unknown[]) => {
      const command = all[all.length - 1] as Command;
      const flags = all[all.length - 2] as Flags;
      // Only `list` has a table; the other sub-commands print the API's data as JSON.
      const format = view ? viewFormat(flags.format, flags.out) : 'json';
      if (flags.columns && format !== 'table') throw new UsageError('--columns: chooses a table\'s columns (--format table; JSON is the API\'s data as it is)');
      const { data } = await call(ctx.client(command).monitors, all.slice(0, -2) as string[], flags);
      if (showsSecret) process.stderr.write('social-data: the signing secret (monitor.secret) is shown this once: store it now; rotate-secret makes a new one\n');
      const text = view && format === 'table' ? renderView(view(data), flags.columns) : `${JSON.stringify(data, null, 2)}\n`;
      if (flags.out) {
        // A file holding the signing secret is its owner's only (an existing one made so before the secret goes in).
        if (showsSecret && existsSync(flags.out)) chmodSync(flags.out, 0o600);
        writeFileSync(flags.out, text, { mode: showsSecret ? 0o600 : 0o666 });
      }
      else process.stdout.write(text);
      ctx.done();
    };
  const sub = (name: string, description: string) => monitors.command(name).description(description).option('--out <file>', 'write to this file (default: standard output)');
  const one = (name: string, description: string, call: (api: SocialDataClient['monitors'], id: string) => Promise<{ data: unknown }>, showsSecret = false) =>
    sub(name, description)
      .argument('<id>', 'the monitor (mon_…)')
      .action(act((api, [id]) => call(api, id!), showsSecret));

  sub('list', "The team's monitors, newest first: a table at a terminal, JSON otherwise.")
    .addOption(new Option('--format <format>', 'table or json (default: a table at a terminal, else JSON)').choices(VIEW_FORMATS))
    .option('--columns <names>', "the table's columns, comma-separated (e.g. id,status,lastPollAt)", parseColumns)
    .action(act((api) => api.list(), false, (data) => monitorsView((data as { monitors: Parameters<typeof monitorsView>[0] }).monitors)));
  one('get', 'One monitor.', (api, id) => api.get(id));
  sub('create', 'A new monitor; prints it with its signing secret (shown this once).')
    .addOption(new Option('--operation <id>', 'what it watches').choices(MONITORABLE_IDS).makeOptionMandatory())
    .option('--param <name=value>', "one of the operation's query parameters (repeat for more), e.g. --param handle=bsky.app", collectParam)
    .requiredOption('--interval <seconds>', 'seconds between polls (60 to 86,400)', seconds('--interval'))
    .requiredOption('--webhook-url <url>', 'https address on the public internet the events are POSTed to')
    .action(act((api, _args, f) => api.create({ operation: f.operation!, params: f.param ?? {}, intervalSeconds: f.interval!, webhookUrl: f.webhookUrl! }), true));
  sub('update', 'Change the interval or the webhook URL.')
    .argument('<id>', 'the monitor (mon_…)')
    .option('--interval <seconds>', 'seconds between polls (60 to 86,400)', seconds('--interval'))
    .option('--webhook-url <url>', 'the new webhook address')
    .action(
      act((api, [id], f) => {
        if (f.interval === undefined && f.webhookUrl === undefined) throw new UsageError('monitors update: give --interval or --webhook-url');
        return api.update(id!, { ...(f.interval === undefined ? {} : { intervalSeconds: f.interval }), ...(f.webhookUrl === undefined ? {} : { webhookUrl: f.webhookUrl }) });
      }),
    );
  one('pause', 'Stop polling until resumed.', (api, id) => api.pause(id));
  one('resume', 'Poll again, at once (also after monitor.paused).', (api, id) => api.resume(id));
  one('delete', 'Delete the monitor (its deliveries stop).', (api, id) => api.remove(id));
  one('rotate-secret', 'A new signing secret (shown this once); the old one stops signing at once.', (api, id) => api.rotateSecret(id), true);
  one('transfer', 'Bind the monitor to this key from now on (revoking the key it was created with no longer pauses it).', (api, id) => api.transfer(id));
  one('test', 'Send a monitor.test event now; prints the delivery.', (api, id) => api.test(id));
  one('deliveries', "The monitor's events of the last 7 days and their delivery state.", (api, id) => api.deliveries(id));
  sub('redeliver', 'Send an event again (the same webhook-id).')
    .argument('<id>', 'the monitor (mon_…)')
    .argument('<eventId>', 'the event (msg_…), from deliveries')
    .action(act((api, [id, eventId]) => api.redeliver(id!, eventId!)));
}
