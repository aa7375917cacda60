/**
 * Every answered request of the last 30 days: totals, requests per day by outcome, errors by code,
 * credits per day by operation (one distinct colour per operation), and a table per operation. The
 * charts span the days there is data for, not 30 mostly empty ones.
 */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip, type ChartDataset } from 'chart.js';
import type { UsageReport } from '../../client/index';
import { ERROR_STATUS } from '../../shared/http/error-status';
import { PAGE_ROOT, api } from '../lib/api';
import { colourOf } from '../lib/colours';
import { percent } from '../lib/format';
import { html, useEffect, useRef } from '../lib/html';
import { Page, Table, Td, useLoad, type PageProps } from '../lib/ui';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

type Counts = UsageReport['days'][number]['operations'][string];
const errorsOf = (o: Counts): number => Object.values(o.errors).reduce((a: number, b) => a + (b ?? 0), 0);
/** The three kinds of answer, in the order (and colours) the chart stacks them. */
const OUTCOMES: { label: string; color: string; pick: (o: Counts) => number }[] = [
  { label: 'Live results', color: '#1f6feb', pick: (o) => o.live },
  { label: 'Cache hits', color: '#1a7f37', pick: (o) => o.hits },
  { label: 'Errors', color: '#cf222e', pick: errorsOf },
];
/** The days from the first with an answer to today: the range there is data for. */
function daysWithData(days: UsageReport['days']): UsageReport['days'] {
  const first = days.findIndex((d) => Object.keys(d.operations).length > 0);
  return first < 0 ? [] : days.slice(first);
}

function BarChart({ label, labels, datasets }: { label: string; labels: string[]; datasets: ChartDataset<'bar', number[]>[] }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const chart = new Chart(canvas.current!, {
      type: 'bar',
      data: { labels, datasets: datasets.map((d) => ({ maxBarThickness: 56, ...d })) },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
        scales: { x: { stacked: true, ticks: { maxRotation: 0, autoSkipPadding: 8 } }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } },
      },
    });
    return () => chart.destroy();
  }, [labels.join(), JSON.stringify(datasets)]);
  return html`<div class="chart" data-days=${labels.length}><canvas ref=${canvas} role="img" aria-label=${label}></canvas></div>`;
}

export function UsagePage({ app, notice }: PageProps) {
  const usage = useLoad(app, async () => (await api.account.usage({ days: 30 })).data);
  const u = usage.data;
  if (!u) return html`<${Page} title="Usage" notice=${notice} error=${usage.error} />`;
  const ops = Object.keys(u.byOperation).sort();
  const days = daysWithData(u.days);
  const labels = days.map((d) => d.day.slice(5));
  const perDay = (pick: (o: Counts) => number) => days.map((d) => Object.values(d.operations).reduce((sum: number, o) => sum + pick(o), 0));
  const codes = (Object.entries(u.totals.byCode) as [string, number][]).sort(([, a], [, b]) => b - a);
  const total = (label: string, value: string, bad = false) => html`<div class=${bad ? 'bad' : undefined}><dt>${label}</dt><dd>${value}</dd></div>`;
  const codeRow = ([code, n]: [string, number]) => {
    const status = String(ERROR_STATUS[code as keyof typeof ERROR_STATUS] ?? '');
    return html`<tr>
      <${Td} label="Code"><code>${code}</code><//>
      <${Td} label="Status" cls="num">${status}<//>
      <${Td} label="Errors" cls="num">${String(n)}<//>
      <${Td} label="Requests"><a href=${`${PAGE_ROOT}/requests?status=${status}`}>Show the ${status} answers</a><//>
    </tr>`;
  };
  const opRow = (op: string) => {
    const o = u.byOperation[op]!;
    return html`<tr>
      <${Td} label="Operation"><span class="swatch" style=${{ background: colourOf(op) }}></span>${op}<//>
      ${[o.requests, o.live, o.hits, o.errorCount].map((n, i) => html`<${Td} label=${['Requests', 'Live results', 'Cache hits', 'Errors'][i]!} cls="num">${String(n)}<//>`)}
      <${Td} label="Cache-hit share" cls="num">${percent(o.cacheHitShare)}<//>
      <${Td} label="Credits" cls="num">${String(o.credits)}<//>
    </tr>`;
  };
  const span = days.length === 1 ? `${days[0]!.day}: the one day with answers (of the last 30)` : days.length ? `${days[0]!.day} to ${days.at(-1)!.day}: the days since the first answer (of the last 30)` : '';
  return html`<${Page} title="Usage" notice=${notice}>
    <dl class="totals">
      ${total('Requests, 30 days', String(u.totals.requests))} ${total('Live results', String(u.totals.live))} ${total('Cache hits', String(u.totals.hits))}
      ${total('Errors', String(u.totals.errorCount), u.totals.errorCount > 0)} ${total('Credits used', String(u.totals.credits))} ${total('Cache-hit share', percent(u.totals.cacheHitShare))}
    </dl>
    <p class="hint">Every answered request is counted, yours and your monitors' polls: live results (1 credit), cache hits and errors (free). <a href=${`${PAGE_ROOT}/requests?status=error`}>The failed requests of the last 7 days</a>.</p>
    <section aria-labelledby="req-heading">
      <h2 id="req-heading">Requests per day</h2>
      ${days.length
        ? html`<p class="hint">${span}.</p>
            <${BarChart} label=${`Requests per day over the last 30 days: ${u.totals.live} live results, ${u.totals.hits} cache hits and ${u.totals.errorCount} errors`} labels=${labels}
              datasets=${OUTCOMES.map((o) => ({ label: o.label, data: perDay(o.pick), backgroundColor: o.color }))} />`
        : html`<p>No requests in the last 30 days.</p>`}
    </section>
    <section aria-labelledby="codes-heading">
      <h2 id="codes-heading">Errors by code</h2>
      ${codes.length ? html`<${Table} caption="Error answers over the last 30 days, by code" columns=${['Code', 'Status', 'Errors', 'Requests']}>${codes.map(codeRow)}<//>` : html`<p>No errors in the last 30 days.</p>`}
    </section>
    <section aria-labelledby="cred-heading">
      <h2 id="cred-heading">Credits per day</h2>
      ${days.length
        ? html`<${BarChart} label=${`Credits used per day over the last 30 days, by operation: ${u.totals.credits} in all`} labels=${labels}
            datasets=${ops.map((op) => ({ label: op, data: days.map((d) => d.operations[op]?.credits ?? 0), backgroundColor: colourOf(op) }))} />`
        : html`<p>No credits used in the last 30 days.</p>`}
    </section>
    <section aria-labelledby="ops-heading">
      <h2 id="ops-heading">By operation</h2>
      ${ops.length
        ? html`<${Table} caption="Requests, live results, cache hits, errors and credits per operation over the last 30 days" columns=${['Operation', 'Requests', 'Live results', 'Cache hits', 'Errors', 'Cache-hit share', 'Credits']}>${ops.map(opRow)}<//>`
        : html`<p>No requests in the last 30 days.</p>`}
    </section>
  <//>`;
}
