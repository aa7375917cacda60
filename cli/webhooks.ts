import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { TEAM_EVENT_TYPES, type SocialDataClient, type TeamEventType } from '../client';
import type { MonitorsContext } from './monitors';
import { UsageError } from './usage-error';

/**
 * `social-data webhooks …`: the team's webhook endpoints for account and service events
 * (docs/webhooks.md), free, with the key, through the typed client's `api.webhooks.*`. Each
 * sub-command prints the API's `data` as JSON; `create` and `rotate-secret` print the signing
 * secret, shown this once (a reminder goes to standard error; --out writes a file of mode 0600).
 * Errors are the API's (a 422 with its details), exit 1; a malformed command line is exit 2.
 */
type Flags = { out?: string; url?: string; type?: TeamEventType[]; description?: string; creditsLow?: number | null };
type Call = (api: SocialDataClient['webhooks'], args: string[], flags: Flags) => Promise<{ data: unknown }>;

const collectType = (value: string, previous: TeamEventType[] = []): TeamEventType[] => {
  if (!(TEAM_EVENT_TYPES as readonly string[]).includes(value)) throw new UsageError(`--type ${value}: one of ${TEAM_EVENT_TYPES.join(', ')}`);
  return [...previous, value as TeamEventType];
};
const threshold = (value: string): number | null => {
  if (value === 'none') return null;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`--credits-low ${value}: a whole number of credits (at least 1), or none`);
  return Number(value);
};

export function addWebhookCommands(program: Command, ctx: MonitorsContext): void {
  const webhooks = program.command('webhooks').description("The team's webhook endpoints: credits, keys, members and operation status as signed webhooks (free).");
  const act =
    (call: Call, showsSecret = false) =>
    async (...all: unknown[]) => {
      const command = all[all.length - 1] as Command;
      const flags = all[all.length - 2] as Flags;
      const { data } = await call(ctx.client(command).webhooks, all.slice(0, -2) as string[], flags);
      if (showsSecret) process.stderr.write('social-data: the signing secret (endpoint.secret) is shown this once: store it now; rotate-secret makes a new one\n');
      const text = `${JSON.stringify(data, null, 2)}\n`;
      if (flags.out) {
        if (showsSecret && existsSync(flags.out)) chmodSync(flags.out, 0o600);
        writeFileSync(flags.out, text, { mode: showsSecret ? 0o600 : 0o666 });
      } else process.stdout.write(text);
      ctx.done();
    };
  const sub = (name: string, description: string) => webhooks.command(name).description(description).option('--out <file>', 'write to this file (default: standard output)');
  const one = (name: string, description: string, call: (api: SocialDataClient['webhooks'], id: string) => Promise<{ data: unknown }>, showsSecret = false) =>
    sub(name, description)
      .argument('<id>', 'the endpoint (ep_…)')
      .action(act((api, [id]) => call(api, id!), showsSecret));
  const typeOption = () => new Option('--type <type>', `an event type it wants (repeat for more): ${TEAM_EVENT_TYPES.join(', ')}`).argParser(collectType);

  sub('list', "The team's endpoints, newest first.").action(act((api) => api.list()));
  one('get', 'One endpoint.', (api, id) => api.get(id));
  sub('create', 'A new endpoint; prints it with its signing secret (shown this once).')
    .requiredOption('--url <url>', 'https address on the public internet the events are POSTed to')
    .addOption(typeOption().makeOptionMandatory())
    .option('--description <text>', 'a note of yours')
    .action(act((api, _a, f) => api.create({ url: f.url!, types: f.type!, ...(f.description ? { description: f.description } : {}) }), true));
  sub('update', 'Change the URL, the event types or the description.')
    .argument('<id>', 'the endpoint (ep_…)')
    .option('--url <url>', 'the new address')
    .addOption(typeOption())
    .option('--description <text>', 'a note of yours')
    .action(
      act((api, [id], f) => {
        if (f.url === undefined && !f.type && f.description === undefined) throw new UsageError('webhooks update: give --url, --type or --description');
        return api.update(id!, { ...(f.url ? { url: f.url } : {}), ...(f.type ? { types: f.type } : {}), ...(f.description !== undefined ? { description: f.description } : {}) });
      }),
    );
  one('disable', 'Hold its deliveries until enabled.', (api, id) => api.update(id, { status: 'disabled' }));
  one('enable', 'Deliver again (what was held, within its 24 h of retries).', (api, id) => api.update(id, { status: 'active' }));
  one('delete', 'Delete the endpoint (its pending deliveries fail).', (api, id) => api.remove(id));
  one('rotate-secret', 'A new signing secret (shown this once); the old one signs too for 24 h.', (api, id) => api.rotateSecret(id), true);
  one('test', 'Send a webhook.test event now; prints the delivery.', (api, id) => api.test(id));
  one('deliveries', "The endpoint's events of the last 7 days and their delivery state.", (api, id) => api.deliveries(id));
  sub('delivery', 'One event and its recent attempts.')
    .argument('<id>', 'the endpoint (ep_…)')
    .argument('<eventId>', 'the event (evt_…), from deliveries')
    .action(act((api, [id, eventId]) => api.delivery(id!, eventId!)));
  sub('redeliver', 'Send an event again (the same webhook-id).')
    .argument('<id>', 'the endpoint (ep_…)')
    .argument('<eventId>', 'the event (evt_…), from deliveries')
    .action(act((api, [id, eventId]) => api.redeliver(id!, eventId!)));
  sub('settings', 'The credits.low threshold (and what was last announced); --credits-low sets it.')
    .option('--credits-low <credits>', 'send credits.low when the balance falls below this (none: never)', threshold)
    .action(act((api, _a, f) => (f.creditsLow === undefined ? api.settings() : api.updateSettings({ creditsLowThreshold: f.creditsLow }))));
}
