/**
 * The team's monitors, listed first (what each watches, its interval and what it may cost a day,
 * webhook, status, polls to the second), each with Pause/Resume, a test event, its deliveries
 * (opened under its own row, attempts beside each event), Rotate secret and Delete; then the form
 * that creates one (./monitor-form.ts). A signing secret is shown once, like a new key's.
 */
import type { Monitor, MonitorDelivery, MonitorWithSecret } from '../../client/index';
import { api, isSignedOut, messageOf } from '../lib/api';
import { every, upToCredits } from '../lib/format';
import { html, useState } from '../lib/html';
import { Action, Confirm, Page, SecretPanel, Table, Td, Time, useLoad, type PageProps, type Question } from '../lib/ui';
import { MonitorCreateForm } from './monitor-form';

const PAUSED_BECAUSE: Record<string, string> = {
  by_request: 'paused by hand',
  no_credits: 'no credit left: resume it after topping up',
  not_found: 'the watched thing is gone (404)',
  deliveries_failing: 'deliveries failed for 3 days',
};
const DELIVERY_STATE: Record<string, string> = { delivered: 'active', pending: 'paused', failed: 'revoked' };
/** What a test or redelivery answered: queued (the delivery worker sends it), or its state when already settled. */
const deliveryOutcome = (d: MonitorDelivery) => (d.state === 'pending' ? 'queued, sent within a minute (Refresh shows it)' : `${d.state}${d.lastStatus ? ` (${d.lastStatus})` : ''}`);
const COLUMNS = ['Watches', 'Interval', 'Webhook URL', 'Status', 'Polls', 'Actions'];

export function MonitorsPage({ app, notice: arrived }: PageProps) {
  const [open, setOpen] = useState<string | undefined>(undefined);
  const data = useLoad(
    app,
    async () => {
      const { monitors } = (await api.monitors.list()).data;
      const shown = monitors.find((m) => m.id === open);
      const deliveries = shown ? (await api.monitors.deliveries(shown.id)).data.deliveries : [];
      return { monitors, deliveries };
    },
    [open],
  );
  const [fresh, setFresh] = useState<MonitorWithSecret | null>(null);
  const [question, setQuestion] = useState<Question | null>(null);
  const [notice, setNotice] = useState(arrived);
  const [alert, setAlert] = useState<string | null>(null);
  const fail = (err: unknown) => (isSignedOut(err) ? app.sessionEnded() : setAlert(messageOf(err)));
  const done = async (text: string) => {
    setAlert(null);
    await data.reload();
    setNotice(text);
  };

  const row = (m: Monitor) => {
    const name = `${m.operation} monitor ${m.id}`;
    const paused = m.status === 'paused';
    const setStatus = (status: 'active' | 'paused') => async () => {
      await api.monitors.update(m.id, { status });
      await done(status === 'paused' ? `The ${m.operation} monitor is paused.` : `The ${m.operation} monitor is active again: it polls now.`);
    };
    const params = Object.entries(m.params);
    return html`<tr data-monitor=${m.id}>
      <${Td} label="Watches"><div><code class="operation">${m.operation}</code><div class="params-list">${params.length ? params.map(([k, v]) => `${k}=${v}`).join(', ') : 'no parameters'}</div></div><//>
      <${Td} label="Interval"><div><span class="nowrap">${every(m.intervalSeconds)}</span><div class="hint">${upToCredits(m.intervalSeconds)}</div></div><//>
      <${Td} label="Webhook URL"><code>${m.webhookUrl}</code><//>
      <${Td} label="Status"><div><span class=${`status ${m.status}`}>${paused ? 'Paused' : 'Active'}</span>${paused && m.pausedReason ? html`<div class="hint">${PAUSED_BECAUSE[m.pausedReason] ?? m.pausedReason}</div>` : null}</div><//>
      <${Td} label="Polls"><div><div>Last: <${Time} iso=${m.lastPollAt} exact />${m.lastPollStatus ? ` (${m.lastPollStatus})` : ''}</div><div>Next: ${m.nextPollAt ? html`<${Time} iso=${m.nextPollAt} exact />` : '–'}</div></div><//>
      <${Td} label="Actions" cls="actions">
        ${paused ? html`<${Action} text="Resume" label=${`Resume ${name}`} run=${setStatus('active')} fail=${fail} />` : html`<${Action} text="Pause" label=${`Pause ${name}`} run=${setStatus('paused')} fail=${fail} />`}
        <${Action} text="Send test event" label=${`Send a test event to ${name}`} fail=${fail} run=${async () => {
          const { delivery } = (await api.monitors.test(m.id)).data;
          setOpen(m.id);
          await done(`Test event ${delivery.eventId}: ${deliveryOutcome(delivery)}.`);
        }} />
        <button type="button" class="secondary" aria-label=${`Deliveries of ${name}`} aria-expanded=${String(open === m.id)} onClick=${() => setOpen(open === m.id ? undefined : m.id)}>Deliveries</button>
        <button type="button" class="secondary" aria-label=${`Rotate the secret of ${name}`} onClick=${() => setQuestion(rotate(m))}>Rotate secret</button>
        <button type="button" class="danger" aria-label=${`Delete ${name}`} onClick=${() => setQuestion(remove(m))}>Delete</button>
      <//>
    </tr>
    ${open === m.id ? html`<tr class="opened"><td colspan=${COLUMNS.length}><${Deliveries} m=${m} deliveries=${data.data?.deliveries ?? []} done=${done} fail=${fail} /></td></tr>` : null}`;
  };
  const rotate = (m: Monitor): Question => ({
    title: `Rotate the signing secret of the ${m.operation} monitor?`,
    text: 'The new secret is shown once. For 24 h every delivery is signed with both, so receivers can switch; then only the new one signs.',
    button: 'Rotate secret',
    act: async () => {
      setFresh((await api.monitors.rotateSecret(m.id)).data.monitor);
    },
  });
  const remove = (m: Monitor): Question => ({
    title: `Delete the ${m.operation} monitor?`,
    text: 'It stops polling and its deliveries are no longer listed. This cannot be undone.',
    button: 'Delete monitor',
    act: async () => {
      await api.monitors.remove(m.id);
      if (open === m.id) setOpen(undefined);
      await done(`The ${m.operation} monitor is deleted.`);
    },
  });
  const created = async (m: MonitorWithSecret) => {
    await done(`The ${m.operation} monitor is created: its first poll sets the baseline and sends monitor.ready.`);
    setFresh(m);
  };

  const monitors = data.data?.monitors;
  return html`<${Page} title="Monitors" notice=${notice} error=${data.error}>
    <p class="hint">A monitor repeats one request at its interval and POSTs what is new to your webhook, signed with its secret. A poll costs credits like your own request (0 when a recent cached answer serves); deliveries are free.</p>
    ${fresh
      ? html`<${SecretPanel} title=${`Signing secret of the ${fresh.operation} monitor`} label=${`Signing secret of monitor ${fresh.id}`} secret=${fresh.secret}
          kept="your receiver checks each delivery’s webhook-signature with it" done=${() => setFresh(null)} />`
      : null}
    <p class="error" role="alert">${alert}</p>
    <section aria-label="Monitors">
      ${monitors === undefined
        ? null
        : monitors.length
          ? html`<${Table} cls="monitors" caption=${`Monitors of ${app.me?.team.name || 'your team'}`} columns=${COLUMNS}>${monitors.map(row)}<//>`
          : html`<p>No monitors yet: create one below.</p>`}
    </section>
    <section aria-labelledby="create-heading">
      <h2 id="create-heading">Create a monitor</h2>
      <${MonitorCreateForm} created=${created} />
    </section>
    <${Confirm} question=${question} close=${() => setQuestion(null)} />
  <//>`;
}

/** A monitor's events of the last 7 days, under its row: state and attempts side by side, Redeliver each. */
function Deliveries({ m, deliveries, done, fail }: { m: Monitor; deliveries: MonitorDelivery[]; done: (notice: string) => Promise<void>; fail: (err: unknown) => void }) {
  const name = `${m.operation} monitor ${m.id}`;
  const row = (d: MonitorDelivery) => html`<tr data-event=${d.eventId}>
    <${Td} label="Event ID"><code class="event-id">${d.eventId}</code><//>
    <${Td} label="Type">${d.type}<//>
    <${Td} label="Created"><${Time} iso=${d.createdAt} exact /><//>
    <${Td} label="State"><span class=${`status ${DELIVERY_STATE[d.state] ?? ''}`}>${d.state}</span><//>
    <${Td} label="Attempts" cls="num">${String(d.attempts)}<//>
    <${Td} label="Last status">${d.lastStatus ? String(d.lastStatus) : (d.lastError ?? '–')}<//>
    <${Td} label="Latency" cls="num nowrap">${d.latencyMs === null ? '–' : `${d.latencyMs} ms`}<//>
    <${Td} label="Next retry">${d.nextRetryAt ? html`<${Time} iso=${d.nextRetryAt} exact />` : '–'}<//>
    <${Td} label="Actions" cls="actions">
      <${Action} text="Redeliver" label=${`Redeliver event ${d.eventId}`} fail=${fail} run=${async () => {
        const { delivery } = (await api.monitors.redeliver(m.id, d.eventId)).data;
        await done(`Event ${delivery.eventId} sent again: ${deliveryOutcome(delivery)}.`);
      }} />
    <//>
  </tr>`;
  return html`<section class="deliveries-of" aria-labelledby="deliveries-heading">
    <h2 id="deliveries-heading">Deliveries of the ${m.operation} monitor</h2>
    <p class="hint">The last 7 days, newest first. A redelivery sends the same event again with the same webhook-id, which receivers de-duplicate on.
      <${Action} text="Refresh" label=${`Refresh the deliveries of ${name}`} fail=${fail} run=${async () => void (await done(''))} /></p>
    ${deliveries.length
      ? html`<${Table} cls="deliveries" caption=${`Events of ${name}`} columns=${['Event ID', 'Type', 'Created', 'State', 'Attempts', 'Last status', 'Latency', 'Next retry', 'Actions']}>${deliveries.map(row)}<//>`
      : html`<p>No events in the last 7 days.</p>`}
  </section>`;
}
