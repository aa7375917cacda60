/**
 * The team's webhook endpoints (docs/webhooks.md): each with the event types it wants, Disable /
 * Enable, a test event, its deliveries (opened under its row, Redeliver each), Rotate secret and
 * Delete; the form that creates one (a checkbox per type of the event catalogue); and the credits.low
 * threshold. A signing secret is shown once, like a new key's. The same engine as the monitors'.
 */
import { TEAM_EVENT_TYPES, type TeamEventType, type WebhookDelivery, type WebhookEndpoint, type WebhookEndpointWithSecret, type WebhookSettings } from '../../client/index';
import { api } from '../lib/api';
import { html } from '../lib/html';
import { Deliveries, rotateQuestion, SenderActions, useSenders } from '../lib/senders';
import { Confirm, Field, Form, Page, SecretPanel, Table, Td, Time, valueOf, type PageProps, type Question } from '../lib/ui';

const COLUMNS = ['URL', 'Events', 'Status', 'Created', 'Actions'];

export function WebhooksPage({ app, notice: arrived }: PageProps) {
  const { open, setOpen, data, fresh, setFresh, question, setQuestion, notice, alert, fail, done } = useSenders<
    { endpoints: WebhookEndpoint[]; settings: WebhookSettings; deliveries: WebhookDelivery[] },
    WebhookEndpointWithSecret
  >(app, arrived, async (open) => {
    const [{ endpoints }, { settings }] = await Promise.all([api.webhooks.list().then((r) => r.data), api.webhooks.settings().then((r) => r.data)]);
    const shown = endpoints.find((e) => e.id === open);
    const deliveries = shown ? (await api.webhooks.deliveries(shown.id)).data.deliveries : [];
    return { endpoints, settings, deliveries };
  });

  const row = (e: WebhookEndpoint) => {
    const name = `webhook endpoint ${e.id}`;
    const disabled = e.status === 'disabled';
    const setStatus = async (status: 'active' | 'disabled') => {
      await api.webhooks.update(e.id, { status });
      await done(status === 'disabled' ? 'The endpoint is disabled: its deliveries wait.' : 'The endpoint is active again: what it held is sent now.');
    };
    return html`<tr data-endpoint=${e.id}>
      <${Td} label="URL"><div><code>${e.url}</code>${e.description ? html`<div class="hint">${e.description}</div>` : null}</div><//>
      <${Td} label="Events"><div class="params-list">${e.types.join(', ')}</div><//>
      <${Td} label="Status"><div><span class=${`status ${disabled ? 'paused' : 'active'}`}>${disabled ? 'Disabled' : 'Active'}</span>${e.previousSecretExpiresAt ? html`<div class="hint">old secret signs until <${Time} iso=${e.previousSecretExpiresAt} exact /></div>` : null}</div><//>
      <${Td} label="Created"><${Time} iso=${e.createdAt} /><//>
      <${SenderActions} name=${name} stopped=${disabled} words=${['Disable', 'Enable']} setStopped=${(stop: boolean) => setStatus(stop ? 'disabled' : 'active')}
        test=${async () => (await api.webhooks.test(e.id)).data.delivery} opened=${open === e.id} setOpened=${(o: boolean) => setOpen(o ? e.id : undefined)}
        rotate=${() => setQuestion(rotate(e))} remove=${() => setQuestion(remove(e))} done=${done} fail=${fail} />
    </tr>
    ${open === e.id
      ? html`<${Deliveries} colspan=${COLUMNS.length} headingId="endpoint-deliveries-heading" heading=${`Deliveries to ${e.url}`}
          hint="The last 7 days, newest first. A redelivery sends the same event with the same webhook-id."
          refreshLabel=${`Refresh the deliveries of endpoint ${e.id}`} caption=${`Events of endpoint ${e.id}`} latency=${false} deliveries=${data.data?.deliveries ?? []}
          redeliver=${async (eventId: string) => (await api.webhooks.redeliver(e.id, eventId)).data.delivery} done=${done} fail=${fail} />`
      : null}`;
  };
  const rotate = (e: WebhookEndpoint) =>
    rotateQuestion('Rotate the signing secret of this endpoint?', 'your receiver', async () => setFresh((await api.webhooks.rotateSecret(e.id)).data.endpoint));
  const remove = (e: WebhookEndpoint): Question => ({
    title: 'Delete this webhook endpoint?',
    text: 'It receives no further events; its pending deliveries fail. This cannot be undone.',
    button: 'Delete endpoint',
    act: async () => {
      await api.webhooks.remove(e.id);
      if (open === e.id) setOpen(undefined);
      await done('The endpoint is deleted.');
    },
  });
  const create = async (f: HTMLFormElement) => {
    const types = TEAM_EVENT_TYPES.filter((t) => (f.elements.namedItem(`type-${t}`) as HTMLInputElement | null)?.checked) as TeamEventType[];
    const description = valueOf(f, 'endpoint-description').trim();
    const { endpoint } = (await api.webhooks.create({ url: valueOf(f, 'endpoint-url').trim(), types, ...(description ? { description } : {}) })).data;
    f.reset();
    await done('The endpoint is created: it receives the events you chose from now on.');
    setFresh(endpoint);
  };
  const saveThreshold = async (f: HTMLFormElement) => {
    const raw = valueOf(f, 'credits-low').trim();
    await api.webhooks.updateSettings({ creditsLowThreshold: raw ? Number(raw) : null });
    await done(raw ? `credits.low is sent when the balance falls below ${raw}.` : 'No credits.low threshold: only credits.exhausted is sent.');
  };

  const endpoints = data.data?.endpoints;
  const settings = data.data?.settings;
  return html`<${Page} title="Webhooks" notice=${notice} error=${data.error}>
    <p class="hint">Your team's events — credits running low, keys created or revoked, members removed, an operation degraded or recovered — POSTed to your endpoints, signed like monitor events (Standard Webhooks). Free.</p>
    ${fresh ? html`<${SecretPanel} title="Signing secret of the endpoint" label=${`Signing secret of endpoint ${fresh.id}`} secret=${fresh.secret} kept="your receiver checks each delivery’s webhook-signature with it" done=${() => setFresh(null)} />` : null}
    <p class="error" role="alert">${alert}</p>
    <section aria-label="Webhook endpoints">
      ${endpoints === undefined
        ? null
        : endpoints.length
          ? html`<${Table} cls="webhooks" caption=${`Webhook endpoints of ${app.me?.team.name || 'your team'}`} columns=${COLUMNS}>${endpoints.map(row)}<//>`
          : html`<p>No webhook endpoints yet: create one below.</p>`}
    </section>
    <section aria-labelledby="create-endpoint-heading">
      <h2 id="create-endpoint-heading">Create an endpoint</h2>
      <${Form} label="Create a webhook endpoint" submit="Create endpoint" onSubmit=${create}>
        <${Field} id="endpoint-url" label="URL" hint="https on a public address" attrs=${{ type: 'url', required: true, maxlength: 2048, placeholder: 'https://example.com/webhooks' }} />
        <fieldset class="field types"><legend>Events it receives</legend>
          ${TEAM_EVENT_TYPES.map((t) => html`<label class="check"><input type="checkbox" name=${`type-${t}`} /> <code>${t}</code></label>`)}
        </fieldset>
        <${Field} id="endpoint-description" label="Description (optional)" attrs=${{ type: 'text', maxlength: 200 }} />
      <//>
    </section>
    <section aria-labelledby="credits-low-heading">
      <h2 id="credits-low-heading">Low balance</h2>
      <${Form} label="The credits.low threshold" submit="Save" cls="inline" onSubmit=${saveThreshold}>
        <${Field} id="credits-low" label="Send credits.low below (credits; empty: never)" hint=${settings?.creditAlert ? `Last announced: ${settings.creditAlert}` : undefined}
          attrs=${{ type: 'number', min: 1, step: 1, defaultValue: settings?.creditsLowThreshold ?? '' }} />
      <//>
    </section>
    <${Confirm} question=${question} close=${() => setQuestion(null)} />
  <//>`;
}
