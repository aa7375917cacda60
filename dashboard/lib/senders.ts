/**
 * What the two senders of the one delivery engine share on their pages (monitors, webhook endpoints):
 * the page's state (the opened row, the secret shown once, the question, notice and alert), a row's
 * actions (Pause/Resume or Disable/Enable, Send test event, Deliveries, Rotate secret, Delete), the
 * rotate-secret question, and the deliveries opened under a row (Redeliver each, Refresh). Each page
 * gives its own calls and words.
 */
import type { MonitorDelivery as Delivery } from '../../client/index';
import { isSignedOut, messageOf } from './api';
import { html, useState } from './html';
import { Action, Table, Td, Time, useLoad, type App, type Question } from './ui';

const DELIVERY_STATE: Record<string, string> = { delivered: 'active', pending: 'paused', failed: 'revoked' };
/** What a test or redelivery answered: queued (the delivery worker sends it), or its state when already settled. */
const deliveryOutcome = (d: Delivery) => (d.state === 'pending' ? 'queued, sent within a minute (Refresh shows it)' : `${d.state}${d.lastStatus ? ` (${d.lastStatus})` : ''}`);

/** A sender page's state: `load` gets the opened sender's id (its deliveries are loaded with the list); `done` reloads and shows a notice. */
export function useSenders<T, Fresh>(app: App, arrived: string | undefined, load: (open: string | undefined) => Promise<T>) {
  const [open, setOpen] = useState<string | undefined>(undefined);
  const data = useLoad(app, () => load(open), [open]);
  const [fresh, setFresh] = useState<Fresh | null>(null);
  const [question, setQuestion] = useState<Question | null>(null);
  const [notice, setNotice] = useState(arrived);
  const [alert, setAlert] = useState<string | null>(null);
  const fail = (err: unknown) => (isSignedOut(err) ? app.sessionEnded() : setAlert(messageOf(err)));
  const done = async (text: string) => {
    setAlert(null);
    await data.reload();
    setNotice(text);
  };
  return { open, setOpen, data, fresh, setFresh, question, setQuestion, notice, alert, fail, done };
}

/** The confirmation before a new signing secret; `receivers` is who switches in the 24 h both sign. */
export const rotateQuestion = (title: string, receivers: string, act: () => Promise<void>): Question => ({
  title,
  text: `The new secret is shown once. For 24 h every delivery is signed with both, so ${receivers} can switch; then only the new one signs.`,
  button: 'Rotate secret',
  act,
});

/** A sender row's buttons. `words` are its stop and resume verbs (Pause/Resume, Disable/Enable); `name` ends each label. */
export function SenderActions(props: {
  name: string;
  stopped: boolean;
  words: [stop: string, resume: string];
  setStopped: (stopped: boolean) => Promise<void>;
  test: () => Promise<Delivery>;
  opened: boolean;
  setOpened: (opened: boolean) => void;
  rotate: () => void;
  remove: () => void;
  done: (notice: string) => Promise<void>;
  fail: (err: unknown) => void;
}) {
  const { name, stopped, words, fail } = props;
  const [verb, run] = stopped ? [words[1], () => props.setStopped(false)] : [words[0], () => props.setStopped(true)];
  return html`<${Td} label="Actions" cls="actions">
    <${Action} text=${verb} label=${`${verb} ${name}`} run=${run} fail=${fail} />
    <${Action} text="Send test event" label=${`Send a test event to ${name}`} fail=${fail} run=${async () => {
      const delivery = await props.test();
      props.setOpened(true);
      await props.done(`Test event ${delivery.eventId}: ${deliveryOutcome(delivery)}.`);
    }} />
    <button type="button" class="secondary" aria-label=${`Deliveries of ${name}`} aria-expanded=${String(props.opened)} onClick=${() => props.setOpened(!props.opened)}>Deliveries</button>
    <button type="button" class="secondary" aria-label=${`Rotate the secret of ${name}`} onClick=${props.rotate}>Rotate secret</button>
    <button type="button" class="danger" aria-label=${`Delete ${name}`} onClick=${props.remove}>Delete</button>
  <//>`;
}

/** A sender's events of the last 7 days, in a row of its own under the sender's: state and attempts side by side, Redeliver each. */
export function Deliveries(props: {
  colspan: number;
  headingId: string;
  heading: string;
  hint: string;
  refreshLabel: string;
  caption: string;
  latency: boolean;
  deliveries: Delivery[];
  redeliver: (eventId: string) => Promise<Delivery>;
  done: (notice: string) => Promise<void>;
  fail: (err: unknown) => void;
}) {
  const { latency, done, fail } = props;
  const row = (d: Delivery) => html`<tr data-event=${d.eventId}>
    <${Td} label="Event ID"><code class="event-id">${d.eventId}</code><//>
    <${Td} label="Type">${d.type}<//>
    <${Td} label="Created"><${Time} iso=${d.createdAt} exact /><//>
    <${Td} label="State"><span class=${`status ${DELIVERY_STATE[d.state] ?? ''}`}>${d.state}</span><//>
    <${Td} label="Attempts" cls="num">${String(d.attempts)}<//>
    <${Td} label="Last status">${d.lastStatus ? String(d.lastStatus) : (d.lastError ?? '–')}<//>
    ${latency ? html`<${Td} label="Latency" cls="num nowrap">${d.latencyMs === null ? '–' : `${d.latencyMs} ms`}<//>` : null}
    <${Td} label="Next retry">${d.nextRetryAt ? html`<${Time} iso=${d.nextRetryAt} exact />` : '–'}<//>
    <${Td} label="Actions" cls="actions">
      <${Action} text="Redeliver" label=${`Redeliver event ${d.eventId}`} fail=${fail} run=${async () => {
        const delivery = await props.redeliver(d.eventId);
        await done(`Event ${delivery.eventId} sent again: ${deliveryOutcome(delivery)}.`);
      }} />
    <//>
  </tr>`;
  const columns = ['Event ID', 'Type', 'Created', 'State', 'Attempts', 'Last status', ...(latency ? ['Latency'] : []), 'Next retry', 'Actions'];
  return html`<tr class="opened"><td colspan=${props.colspan}><section class="deliveries-of" aria-labelledby=${props.headingId}>
    <h2 id=${props.headingId}>${props.heading}</h2>
    <p class="hint">${props.hint}
      <${Action} text="Refresh" label=${props.refreshLabel} fail=${fail} run=${async () => void (await done(''))} /></p>
    ${props.deliveries.length
      ? html`<${Table} cls="deliveries" caption=${props.caption} columns=${columns}>${props.deliveries.map(row)}<//>`
      : html`<p>No events in the last 7 days.</p>`}
  </section></td></tr>`;
}
