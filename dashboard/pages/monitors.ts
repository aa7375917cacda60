/**
 * The team's monitors, listed first (what each watches, its interval and what it may cost a day,
 * webhook, status, polls to the second), each with Pause/Resume, a test event, its deliveries
 * (opened under its own row, attempts beside each event), Rotate secret and Delete; then the form
 * that creates one (./monitor-form.ts). A signing secret is shown once, like a new key's.
 */
import type { Monitor, MonitorDelivery, MonitorWithSecret } from '../../client/index';
import { api } from '../lib/api';
import { every, upToCredits } from '../lib/format';
import { html } from '../lib/html';
import { Deliveries, rotateQuestion, SenderActions, useSenders } from '../lib/senders';
import { Confirm, Page, SecretPanel, Table, Td, Time, type PageProps, type Question } from '../lib/ui';
import { MonitorCreateForm } from './monitor-form';

const PAUSED_BECAUSE: Record<string, string> = {
  by_request: 'paused by hand',
  no_credits: 'no credit left: resume it after topping up',
  not_found: 'the watched thing is gone (404)',
  deliveries_failing: 'deliveries failed for 3 days',
};
const COLUMNS = ['Watches', 'Interval', 'Webhook URL', 'Status', 'Polls', 'Actions'];

export function MonitorsPage({ app, notice: arrived }: PageProps) {
  const { open, setOpen, data, fresh, setFresh, question, setQuestion, notice, alert, fail, done } = useSenders<{ monitors: Monitor[]; deliveries: MonitorDelivery[] }, MonitorWithSecret>(
    app,
    arrived,
    async (open) => {
      const { monitors } = (await api.monitors.list()).data;
      const shown = monitors.find((m) => m.id === open);
      const deliveries = shown ? (await api.monitors.deliveries(shown.id)).data.deliveries : [];
      return { monitors, deliveries };
    },
  );

  const row = (m: Monitor) => {
    const name = `${m.operation} monitor ${m.id}`;
    const paused = m.status === 'paused';
    const setStatus = async (status: 'active' | 'paused') => {
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
      <${SenderActions} name=${name} stopped=${paused} words=${['Pause', 'Resume']} setStopped=${(stop: boolean) => setStatus(stop ? 'paused' : 'active')}
        test=${async () => (await api.monitors.test(m.id)).data.delivery} opened=${open === m.id} setOpened=${(o: boolean) => setOpen(o ? m.id : undefined)}
        rotate=${() => setQuestion(rotate(m))} remove=${() => setQuestion(remove(m))} done=${done} fail=${fail} />
    </tr>
    ${open === m.id
      ? html`<${Deliveries} colspan=${COLUMNS.length} headingId="deliveries-heading" heading=${`Deliveries of the ${m.operation} monitor`}
          hint="The last 7 days, newest first. A redelivery sends the same event again with the same webhook-id, which receivers de-duplicate on."
          refreshLabel=${`Refresh the deliveries of ${name}`} caption=${`Events of ${name}`} latency deliveries=${data.data?.deliveries ?? []}
          redeliver=${async (eventId: string) => (await api.monitors.redeliver(m.id, eventId)).data.delivery} done=${done} fail=${fail} />`
      : null}`;
  };
  const rotate = (m: Monitor) =>
    rotateQuestion(`Rotate the signing secret of the ${m.operation} monitor?`, 'receivers', async () => {
      setFresh((await api.monitors.rotateSecret(m.id)).data.monitor);
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
