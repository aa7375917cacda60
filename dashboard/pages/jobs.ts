/**
 * The team's bulk jobs (docs/jobs.md): a form that submits a file of inputs (one a line, JSON Lines,
 * or CSV with a header row: uploaded to its pre-signed URL, then the job made from it), then every
 * job newest first with a progress bar, its counts and credits, Cancel or Resume, and once it has
 * ended its files (short-lived download links) and its errors (the first rows of errors.jsonl, read
 * through its link). A job with a destination shows how its delivery went, and "Retry delivery" when
 * it failed. The list reads itself again every 3 seconds while a job runs. A job may have its own
 * webhook (a public https URL): its signing secret is shown once after the submit, as a new endpoint's.
 */
import type { Job, JobFile } from '../../client/index';
import { OPERATIONS } from '../../client/index';
import { api, isSignedOut, messageOf } from '../lib/api';
import { html, useEffect, useState } from '../lib/html';
import { Action, Choice, Field, Form, Page, SecretPanel, Table, Td, Time, useLoad, valueOf, type PageProps } from '../lib/ui';

const COLUMNS = ['Job', 'State', 'Progress', 'Credits', 'Started', 'Actions'];
/** The errors shown on the page, at most; errors.csv and errors.jsonl hold them all. */
const ERRORS_SHOWN = 20;

interface ErrorRow {
  line: number;
  input: string;
  status: number;
  code: string;
  message: string;
}
interface Shown {
  files: JobFile[];
  errors: ErrorRow[];
  /** Rows of errors.jsonl in all. */
  errorCount: number;
}

/** The job's files and the first rows of its errors file (fetched through its short-lived link). */
async function filesOf(id: string): Promise<Shown> {
  const files = (await api.jobs.results(id)).data.files;
  const link = files.find((f) => f.name === 'errors.jsonl');
  const lines = link ? (await (await fetch(link.url)).text()).split('\n').filter((l) => l.trim()) : [];
  return { files, errors: lines.slice(0, ERRORS_SHOWN).map((l) => JSON.parse(l) as ErrorRow), errorCount: lines.length };
}

/** Where the job's files go in the customer's bucket and how that went: the code, and what AWS answered behind a disclosure. */
function Delivery({ job }: { job: Job }) {
  const d = job.destination;
  if (!d) return null;
  const where = `s3://${d.bucket}/${d.prefix ? `${d.prefix}/` : ''}${job.id}/`;
  const word = { delivered: 'delivered', failed: 'not delivered', retrying: 'delivering again', pending: 'will deliver' }[d.state];
  return html`<div class="delivery">
    <span class=${`status ${d.state === 'failed' ? 'not-delivered' : d.state}`}>${word}</span> to <code>${where}</code>
    ${d.code ? html`<details><summary><code>${d.code}</code>: what AWS answered</summary><p class="hint">${d.message}</p></details>` : null}
  </div>`;
}

const OPERATION_CHOICES: [string, string][] = Object.values(OPERATIONS).filter((o) => o.status === 'live').map((o) => [o.id, o.id]);

export function JobsPage({ app, notice: arrived }: PageProps) {
  const jobs = useLoad(app, async () => (await api.jobs.list()).data.jobs);
  const [files, setFiles] = useState<Record<string, Shown>>({});
  const [notice, setNotice] = useState(arrived);
  const [alert, setAlert] = useState<string | null>(null);
  const [fresh, setFresh] = useState<{ id: string; secret: string } | null>(null);
  const fail = (err: unknown) => (isSignedOut(err) ? app.sessionEnded() : setAlert(messageOf(err)));
  const running = (jobs.data ?? []).some((j) => j.state === 'queued' || j.state === 'running' || j.destination?.state === 'retrying');
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => void jobs.reload().catch(fail), 3000);
    return () => clearInterval(timer);
  }, [running]);

  const submit = async (f: HTMLFormElement) => {
    const file = (f.elements.namedItem('job-file') as HTMLInputElement).files?.[0];
    if (!file) throw new Error('Choose a file of inputs');
    const csv = file.name.toLowerCase().endsWith('.csv');
    const text = await file.text();
    // One input a line: a value of the main parameter, or a JSON object; sent as JSON Lines (CSV as it is).
    const body = csv ? text : text.split(/\r?\n/).filter((l) => l.trim()).map((l) => (l.trim().startsWith('{') ? l.trim() : JSON.stringify(l.trim()))).join('\n');
    const upload = (await api.jobs.upload(body, csv ? 'csv' : 'jsonl')).data.upload;
    const pages = valueOf(f, 'job-pages');
    const webhook = valueOf(f, 'job-webhook').trim();
    const { job } = (await api.jobs.submit({ operation: valueOf(f, 'job-operation') as Parameters<typeof api.jobs.submit>[0]['operation'], inputsUpload: upload.id, pages: pages === 'all' ? 'all' : Number(pages), skipInvalid: (f.elements.namedItem('job-skip') as HTMLInputElement).checked, ...(webhook ? { webhook } : {}) })).data;
    f.reset();
    if (job.webhook?.secret) setFresh({ id: job.id, secret: job.webhook.secret });
    await jobs.reload();
    setNotice(`Job ${job.id} submitted: ${job.inputs.total} inputs${job.inputs.duplicates ? ` (${job.inputs.duplicates} duplicates run once)` : ''}${job.inputs.invalid ? `, ${job.inputs.invalid} invalid skipped` : ''}.`);
  };

  const row = (j: Job) => {
    const finished = j.inputs.done + j.inputs.failed + j.inputs.skipped;
    const act = (what: 'cancel' | 'resume') => async () => {
      await api.jobs[what](j.id);
      await jobs.reload();
      setNotice(what === 'cancel' ? `Job ${j.id} is cancelled: no input starts after this.` : `Job ${j.id} runs again.`);
    };
    const shown = files[j.id];
    const retry = async () => {
      const { job } = (await api.jobs.retryDestination(j.id)).data;
      await jobs.reload();
      const delivered = job.destination?.state === 'delivered';
      setNotice(delivered ? `Job ${j.id}: its files are delivered to your bucket.` : undefined);
      setAlert(delivered ? null : `Job ${j.id}: still not delivered (${job.destination?.code ?? 'unknown'}). Check what the job says, then try again.`);
    };
    return html`<tr data-job=${j.id}>
      <${Td} label="Job"><div><code class="job-id">${j.id}</code><div class="hint">${j.operation}</div>${j.webhook ? html`<div class="hint">webhook: ${j.webhook.url}</div>` : null}</div><//>
      <${Td} label="State"><div><span class=${`status ${j.state}`}>${j.state}</span>${j.pausedReason === 'no_credits' ? html`<div class="hint">no credit left: resume it after topping up</div>` : null}${j.error ? html`<div class="hint">${j.error}</div>` : null}<${Delivery} job=${j} /></div><//>
      <${Td} label="Progress"><div><progress max=${String(Math.max(1, j.inputs.total))} value=${String(finished)} aria-label=${`Progress of ${j.id}`}></progress>
        <div class="hint">${finished} of ${j.inputs.total} inputs${j.inputs.failed ? ` (${j.inputs.failed} failed)` : ''}, ${j.items} items${j.estimatedSecondsLeft !== null ? `, about ${j.estimatedSecondsLeft} s left` : ''}</div></div><//>
      <${Td} label="Credits" cls="num">${String(j.creditsCharged)}<//>
      <${Td} label="Started"><${Time} iso=${j.startedAt} exact /><//>
      <${Td} label="Actions" cls="actions">
        ${j.state === 'queued' || j.state === 'running' || j.state === 'paused' ? html`<${Action} text="Cancel" label=${`Cancel ${j.id}`} cls="danger" run=${act('cancel')} fail=${fail} />` : null}
        ${j.state === 'paused' ? html`<${Action} text="Resume" label=${`Resume ${j.id}`} run=${act('resume')} fail=${fail} />` : null}
        ${j.destination?.state === 'failed' ? html`<${Action} text="Retry delivery" label=${`Retry the delivery of ${j.id} to your bucket`} run=${retry} fail=${fail} />` : null}
        ${j.resultsReady ? html`<${Action} text="Files" label=${`Files of ${j.id}`} fail=${fail} run=${async () => setFiles({ ...files, [j.id]: await filesOf(j.id) })} />` : null}
      <//>
    </tr>${shown ? filesRow(j, shown) : null}`;
  };

  const filesRow = (j: Job, shown: Shown) => html`<tr class="opened job-files" data-files-of=${j.id}>
    <td colspan=${String(COLUMNS.length)} data-label="Files">
      <div>
        <ul class="files" aria-label=${`Files of ${j.id}`}>${shown.files.map((f) => html`<li><a href=${f.url} download>${f.name}</a></li>`)}</ul>
        <p class="hint">Links expire at <${Time} iso=${shown.files[0]?.expiresAt} exact />; press Files again for new ones.</p>
        ${shown.errorCount
          ? html`<table class="stack errors">
              <caption>${shown.errorCount > shown.errors.length ? `Errors: the first ${shown.errors.length} of ${shown.errorCount} (all in errors.csv)` : `Errors (${shown.errorCount})`}</caption>
              <thead><tr><th scope="col">Line</th><th scope="col">Input</th><th scope="col">Status</th><th scope="col">Why</th></tr></thead>
              <tbody>${shown.errors.map((e) => html`<tr><td data-label="Line" class="num">${String(e.line)}</td><td data-label="Input"><code>${e.input}</code></td><td data-label="Status"><span>${String(e.status)} <code>${e.code}</code></span></td><td data-label="Why">${e.message}</td></tr>`)}</tbody>
            </table>`
          : html`<p>No errors: every input ran.</p>`}
      </div>
    </td>
  </tr>`;

  return html`<${Page} title="Jobs" notice=${notice} error=${alert ?? jobs.error}>
    ${fresh ? html`<${SecretPanel} title="Signing secret of the job's webhook" label=${`Signing secret of the webhook of job ${fresh.id}`} secret=${fresh.secret} kept="your receiver checks each delivery’s webhook-signature with it" done=${() => setFresh(null)} />` : null}
    <p class="hint">A job runs every input of a file through one operation at the platform's pace: 1 credit per live page, as a request; cached pages and errors cost nothing. Files are kept 7 days.</p>
    ${jobs.data
      ? jobs.data.length
        ? html`<${Table} cls="jobs" caption="Your team's jobs, newest first" columns=${COLUMNS}>${jobs.data.map(row)}<//>`
        : html`<p>No job yet: submit a file of inputs below.</p>`
      : null}
    <h2>Submit a job</h2>
    <${Form} label="Submit a job" submit="Submit" cls="job" onSubmit=${submit}>
      <${Choice} id="job-operation" label="Operation" options=${OPERATION_CHOICES} />
      <div class="field"><label for="job-file">Inputs</label><input id="job-file" name="job-file" type="file" accept=".txt,.jsonl,.csv" required /><p class="hint">One input a line (a handle, a URL… or a JSON object of parameters), or CSV with a header row naming the parameters. Up to 100,000.</p></div>
      <${Choice} id="job-pages" label="Pages per input" options=${[['1', '1'], ['2', '2'], ['5', '5'], ['all', 'all (up to 50)']]} />
      <div class="field"><label class="check"><input id="job-skip" name="job-skip" type="checkbox" /> Run the valid inputs and list the invalid ones in the errors file</label></div>
      <${Field} id="job-webhook" label="Webhook (optional)" hint="A public https URL: the job's events (succeeded, failed, paused) are POSTed there too, signed with a secret shown once." attrs=${{ type: 'url', placeholder: 'https://example.com/hooks/jobs' }} />
    <//>
  <//>`;
}
