/** The public status of every operation (GET /v1/status): no session needed. */
import type { OperationStatus, StatusDocument } from '../../client/index';
import { api, messageOf } from '../lib/api';
import { percent, when } from '../lib/format';
import { html, useEffect, useState } from '../lib/html';
import { Page, Table, Td, Time, type PageProps } from '../lib/ui';

const ms = (n: number | null) => (n === null ? '–' : `≤ ${n} ms`);
const codes = (byCode: Record<string, number>) =>
  Object.entries(byCode)
    .map(([code, n]) => `${code} ${n}`)
    .join(', ') || '–';

function canary(c: OperationStatus['canary']) {
  if (!c) return 'not run';
  const drift = [...c.missing.map((f) => `missing ${f}`), ...c.newlyNull.map((f) => `now null: ${f}`)];
  return `${c.ok ? 'passed' : `failed (${c.code ?? 'error'}${c.consecutiveFailures > 1 ? `, ${c.consecutiveFailures} in a row` : ''})`}${drift.length ? `; drift: ${drift.join(', ')}` : ''}, ${when(c.at)}`;
}

/** A path that wraps only before a "/" (each segment a box that is never broken), and not at all on a wide screen. */
const Path = ({ path }: { path: string }) =>
  html`<code class="path">${path
    .split('/')
    .slice(1)
    .map((seg) => html`<span>/${seg}</span>`)}</code>`;

/** "unknown" with some answers is not a mystery: there were too few to judge by (the rules' minimum). */
function State({ o, minSample }: { o: OperationStatus; minSample: number }) {
  const n = o.last15m.answers;
  const words = o.state === 'unknown' && n > 0 ? `too few answers to judge (${n})` : o.state;
  return html`<span class=${`state state-${o.state.replace(/\s+/g, '-')}`} title=${o.state === 'unknown' && n > 0 ? `${o.reason}; at least ${minSample} are needed` : o.reason}>${words}</span>`;
}

export function StatusPage({ notice }: PageProps) {
  const [doc, setDoc] = useState<StatusDocument | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.status().then(setDoc, (err: unknown) => setError(`The status could not be read: ${messageOf(err)}`));
  }, []);
  const row = (o: OperationStatus) => html`<tr>
    <th scope="row" data-label="Operation"><${Path} path=${o.path} /></th>
    <${Td} label="State"><${State} o=${o} minSample=${doc!.rules.MIN_SAMPLE} /><//>
    <${Td} label="Answers 15 min" cls="num">${String(o.last15m.answers)}<//>
    <${Td} label="Success 15 min" cls="num">${percent(o.last15m.successShare)}<//>
    <${Td} label="p50 / p95 15 min" cls="nowrap">${`${ms(o.last15m.latencyMs.p50)} / ${ms(o.last15m.latencyMs.p95)}`}<//>
    <${Td} label="Errors 15 min">${codes(o.last15m.byCode)}<//>
    <${Td} label="Items dropped 15 min" cls="num">${String(o.last15m.droppedItems ?? 0)}<//>
    <${Td} label="Answers 24 h" cls="num">${String(o.last24h.answers)}<//>
    <${Td} label="Success 24 h" cls="num">${percent(o.last24h.successShare)}<//>
    <${Td} label="p95 24 h" cls="nowrap">${ms(o.last24h.latencyMs.p95)}<//>
    <${Td} label="Last success"><${Time} iso=${o.lastSuccessAt} /><//>
    <${Td} label="Last canary">${canary(o.canary)}<//>
  </tr>`;
  const columns = ['Operation', 'State', 'Answers 15 min', 'Success 15 min', 'p50 / p95 15 min', 'Errors 15 min', 'Items dropped 15 min', 'Answers 24 h', 'Success 24 h', 'p95 24 h', 'Last success', 'Last canary'];
  return html`<${Page} title="Status" notice=${notice} error=${error}>
    ${doc
      ? html`<p>Each operation's state from the answers of the last 15 minutes and its canary; figures as of ${when(doc.generatedAt)}. A 404 or 422 is the caller's answer, not a failure; a state needs at least ${doc.rules.MIN_SAMPLE} answers (or a recent canary) to be judged.</p>
          <${Table} cls="status" caption="State, answers, success share, latency of live answers and the last canary, per operation" columns=${columns}>${doc.operations.map(row)}<//>`
      : null}
  <//>`;
}
