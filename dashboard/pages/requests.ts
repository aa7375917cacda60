/** The last 7 days of requests, newest first: filtered by operation, status and source (in the page's query), 50 at a time. */
import { OPERATIONS, type RequestsFilter, type RequestsReport } from '../../client/index';
import { PAGE_ROOT, api } from '../lib/api';
import { whenExact } from '../lib/format';
import { html } from '../lib/html';
import { SOURCE_CHOICES, SourceLabel } from '../lib/source';
import { Choice, Page, Table, Td, useLoad, type PageProps } from '../lib/ui';

const OPERATION_IDS: string[] = Object.values(OPERATIONS)
  .filter((o) => o.status === 'live')
  .map((o) => o.id);
const STATUS_CHOICES: [string, string][] = [
  ['', 'All answers'],
  ['error', 'Errors (400 and above)'],
  ...['200', '400', '402', '404', '422', '503'].map((st): [string, string] => [st, st]),
];
const FILTERS = ['operation', 'status', 'source'] as const;

/** The query without its cursor: the newest page of the same filters. */
function withoutCursor(q: URLSearchParams): string {
  const f = new URLSearchParams(q);
  f.delete('cursor');
  const s = f.toString();
  return s ? `?${s}` : '';
}

function row(q: RequestsReport['requests'][number]) {
  return html`<tr>
    <${Td} label="Time"><time datetime=${q.time}>${whenExact(q.time)}</time><//>
    <${Td} label="Operation">${q.operation}<//>
    <${Td} label="Source"><${SourceLabel} source=${q.source} monitorId=${q.monitorId} jobId=${q.jobId} /><//>
    <${Td} label="Key">${q.keyName ?? (q.keyId ? html`<code>${q.keyId}</code>` : '–')}<//>
    <${Td} label="Status" cls="num"><span class=${`status ${q.status < 400 ? 'active' : 'revoked'}`}>${String(q.status)}</span><//>
    <${Td} label="Error code">${q.code ? html`<code class="nowrap">${q.code}</code>` : '–'}<//>
    <${Td} label="Credits" cls="num">${String(q.credits)}<//>
    <${Td} label="Cached">${q.cached ? 'yes' : 'no'}<//>
    <${Td} label="Latency" cls="num nowrap">${`${q.ms} ms`}<//>
    <${Td} label="Request ID"><code>${q.requestId}</code><//>
  </tr>`;
}

export function RequestsPage({ app, query, notice }: PageProps) {
  const filter: RequestsFilter = {};
  const op = query.get('operation');
  const status = query.get('status');
  const source = query.get('source');
  if (op) filter.operation = op;
  if (status) filter.status = status === 'error' ? 'error' : Number(status);
  if (source === 'request' || source === 'monitor') filter.source = source;
  const cursor = query.get('cursor');
  if (cursor) filter.cursor = cursor;
  const report = useLoad(app, async () => (await api.account.requests(filter)).data);

  const go = (search: string) => (e: Event) => {
    e.preventDefault();
    app.navigate('requests', search);
  };
  const show = (e: Event) => {
    e.preventDefault();
    const f = e.currentTarget as HTMLFormElement;
    const next = new URLSearchParams();
    for (const name of FILTERS) {
      const v = (f.elements.namedItem(name) as HTMLSelectElement).value;
      if (v) next.set(name, v);
    }
    app.navigate('requests', withoutCursor(next));
  };
  const filtered = FILTERS.some((f) => query.has(f));
  const r = report.data;
  const older = new URLSearchParams(query);
  if (r?.cursor) older.set('cursor', r.cursor);
  const caption = r ? `${r.requests.length} request${r.requests.length === 1 ? '' : 's'}${filtered ? ' matching the filters' : ''}${cursor ? ' (an older page)' : ''}` : '';
  return html`<${Page} title="Requests" notice=${notice} error=${report.error}>
    <p class="hint">Your team's requests of the last 7 days, newest first: every answer, errors included, yours (made with a key) and your monitors' polls. Reading them costs nothing.</p>
    <form class="filters" aria-label="Filter the requests" onSubmit=${show}>
      <${Choice} id="operation" label="Operation" options=${[['', 'All operations'], ...OPERATION_IDS.map((id) => [id, id])]} value=${op} />
      <${Choice} id="status" label="Status" options=${STATUS_CHOICES} value=${status} />
      <${Choice} id="source" label="Source" options=${SOURCE_CHOICES} value=${source} />
      <button type="submit">Show</button>
    </form>
    ${r
      ? r.requests.length
        ? html`<${Table} cls="requests" caption=${caption} columns=${['Time', 'Operation', 'Source', 'Key', 'Status', 'Error code', 'Credits', 'Cached', 'Latency', 'Request ID']}>${r.requests.map(row)}<//>`
        : html`<p>${filtered ? 'No requests match these filters in the last 7 days.' : 'No requests in the last 7 days.'}</p>`
      : null}
    <p class="paging">
      ${cursor ? html`<a href=${`${PAGE_ROOT}/requests${withoutCursor(query)}`} onClick=${go(withoutCursor(query))}>Newest requests</a>` : null}
      ${r?.cursor ? html`<a href=${`${PAGE_ROOT}/requests?${older.toString()}`} onClick=${go(`?${older.toString()}`)}>Older requests</a>` : null}
    </p>
  <//>`;
}
