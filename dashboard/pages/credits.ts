/** The balance and the latest charges, each with where it came from (your request or a monitor's poll), filtered by source. */
import type { CreditsReport } from '../../client/index';
import { api } from '../lib/api';
import { plural } from '../lib/format';
import { html, useState } from '../lib/html';
import { SOURCE_CHOICES, SourceLabel, sourceOf } from '../lib/source';
import { Choice, Page, Table, Td, Time, useLoad, type PageProps } from '../lib/ui';

type Charge = CreditsReport['charges'][number];

export function CreditsPage({ app, notice }: PageProps) {
  const credits = useLoad(app, async () => (await api.account.credits()).data);
  const [source, setSource] = useState('');
  const c = credits.data;
  const shown = (c?.charges ?? []).filter((x) => !source || sourceOf(x) === source);
  const row = (x: Charge) => html`<tr>
    <${Td} label="Time"><${Time} iso=${x.time} exact /><//>
    <${Td} label="Operation">${x.operation}<//>
    <${Td} label="Source"><${SourceLabel} source=${x.source} monitorId=${x.monitorId} jobId=${x.jobId} /><//>
    <${Td} label="Request ID"><code>${x.requestId}</code><//>
    <${Td} label="Credits" cls="num">${String(x.credits)}<//>
  </tr>`;
  return html`<${Page} title="Credits" notice=${notice} error=${credits.error}>
    ${c
      ? html`<p class="balance"><span class="big">${c.balance.toLocaleString('en')}</span> credit${c.balance === 1 ? '' : 's'} left</p>
          <p class="hint">A live request costs 1 credit, whether you sent it or a monitor polled; cached answers and errors cost nothing.</p>
          ${c.charges.length
            ? html`<form class="filters one" aria-label="Filter the charges" onSubmit=${(e: Event) => e.preventDefault()}>
                  <${Choice} id="charge-source" label="Source" options=${SOURCE_CHOICES} value=${source} onChange=${setSource} />
                </form>
                ${shown.length
                  ? html`<${Table} caption=${`Recent charges (the latest ${c.charges.length}${source ? `; ${plural(shown.length, 'charge')} of this source` : ''})`} columns=${['Time', 'Operation', 'Source', 'Request ID', 'Credits']}>${shown.map(row)}<//>`
                  : html`<p>None of the latest ${plural(c.charges.length, 'charge')} came from this source.</p>`}`
            : html`<p>No charges yet.</p>`}`
      : null}
  <//>`;
}
