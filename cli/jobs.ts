import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Command, Option } from 'commander';
import { type Job, SocialDataClient } from '../client';
import { JOB_EVENTS, MAX_INLINE_INPUTS } from '../shared/api/job-routes';
import { routedOperations } from '../shared/operations';
import { UsageError } from './usage-error';

/**
 * `social-data jobs …`: the team's bulk jobs (docs/jobs.md) through the typed client's `api.jobs.*`.
 * `submit <operation> --input FILE` sends a file of inputs (one a line: a value of the operation's
 * main parameter, or a JSON object of parameters; a .csv file with a header row naming them): up to
 * 1,000 lines inline, more as an upload (JSON Lines or CSV) to a pre-signed URL. `--wait` reads the
 * job until it ends (progress on standard error), `--download DIR` then writes its result files.
 * `--webhook URL` gives the job its own webhook: the signing secret the API shows this once goes to
 * the file `--webhook-secret-out` names (mode 0600, as the webhooks CLI's `--out`), never to the output.
 * Each sub-command prints the API's `data` as JSON. Errors are the API's (exit 1); a malformed
 * command line is exit 2 and sends nothing.
 */
export interface JobsContext {
  client: (command: Command) => SocialDataClient;
  done: () => void;
}

type Flags = { input?: string; pages?: string; cacheMaxAge?: string; skipInvalid?: boolean; wait?: boolean; download?: string; idempotencyKey?: string; webhook?: string; webhookEvent?: string[]; webhookSecretOut?: string };

const collectEvent = (value: string, previous: string[] = []) => {
  if (!(JOB_EVENTS as readonly string[]).includes(value)) throw new UsageError(`--webhook-event ${value}: one of ${JOB_EVENTS.join(', ')}`);
  return [...previous, value];
};

/** The signing secret into its own file, its owner's only (an existing one made so before the secret goes in). */
function writeSecret(file: string, secret: string): void {
  if (existsSync(file)) chmodSync(file, 0o600);
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
}

/** The lines of an input file: a value, or a JSON object of parameters (JSON Lines). */
function inlineInputs(text: string): (string | Record<string, string>)[] {
  return text
    .split(/\r?\n/)
    .filter((l) => l.trim())
    .map((l) => {
      const t = l.trim();
      if (t.startsWith('{')) {
        try {
          return JSON.parse(t) as Record<string, string>;
        } catch {
          return t;
        }
      }
      return t;
    });
}

/** Writes the job's result files into `dir`; their paths. */
export async function downloadResults(api: SocialDataClient['jobs'], id: string, dir: string): Promise<string[]> {
  const { data } = await api.results(id);
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const f of data.files) {
    const res = await fetch(f.url);
    if (!res.ok) throw new Error(`${f.name}: HTTP ${res.status}`);
    const file = path.join(dir, `${id}-${f.name}`);
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    written.push(file);
  }
  return written;
}

const progressLine = (j: Job) => `social-data: ${j.id} ${j.state}: ${j.inputs.done + j.inputs.failed + j.inputs.skipped}/${j.inputs.total} inputs (${j.inputs.failed} failed), ${j.items} items, ${j.creditsCharged} credits${j.estimatedSecondsLeft !== null ? `, ~${j.estimatedSecondsLeft} s left` : ''}\n`;

export function addJobCommands(program: Command, ctx: JobsContext): void {
  const jobs = program.command('jobs').description("The team's bulk jobs: up to 100,000 inputs of one operation run by the service, results as files (1 credit per live page).");
  const print = (data: unknown) => process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
  jobs
    .command('submit')
    .description('Submit a job of the inputs in FILE (one a line, or CSV with a header row); prints the job.')
    .argument('<operation>', 'the operation id, e.g. microblog-a-user-posts')
    .requiredOption('--input <file>', 'the inputs: one a line (a value or a JSON object of parameters), or a .csv file')
    .option('--pages <n|all>', 'pages per input: a number, or all (default 1)')
    .addOption(new Option('--cache-max-age <age>', 'accept cached answers this old (free)').choices(['1d', '3d', '7d', '14d', '30d']))
    .option('--skip-invalid', 'run the valid inputs and list the others in the errors file (else the whole job is refused)')
    .option('--idempotency-key <key>', 'the same key again returns the same job instead of a new one')
    .option('--wait', 'read the job until it ends, its progress on standard error')
    .option('--download <dir>', 'with --wait: write the result files into this directory')
    .option('--webhook <url>', "the job's own webhook: its events are POSTed there too, signed (public https); needs --webhook-secret-out")
    .option('--webhook-event <type>', `with --webhook: an event it wants (repeat for more; default all): ${JOB_EVENTS.join(', ')}`, collectEvent)
    .option('--webhook-secret-out <file>', "with --webhook: write the webhook's signing secret (shown this once) to this file, mode 0600")
    .action(async (operation: string, f: Flags, command: Command) => {
      if (!routedOperations().some((o) => o.id === operation)) throw new UsageError(`jobs submit ${operation}: not an operation (${routedOperations().map((o) => o.id).join(', ')})`);
      const pages: number | 'all' | undefined = f.pages === undefined ? undefined : f.pages === 'all' ? 'all' : /^\d+$/.test(f.pages) ? Number(f.pages) : undefined;
      if (f.pages !== undefined && pages === undefined) throw new UsageError(`--pages ${f.pages}: a number or all`);
      if (f.download && !f.wait) throw new UsageError('--download: needs --wait (the files are written when the job ends)');
      if (f.webhook && !f.webhookSecretOut) throw new UsageError('--webhook: needs --webhook-secret-out FILE (the signing secret is shown this once)');
      if (!f.webhook && (f.webhookSecretOut || f.webhookEvent)) throw new UsageError('--webhook-event, --webhook-secret-out: need --webhook');
      const text = readFileSync(f.input!, 'utf8');
      const api = ctx.client(command).jobs;
      const csv = f.input!.toLowerCase().endsWith('.csv');
      const lines = csv ? [] : inlineInputs(text);
      const base = { operation: operation as Parameters<typeof api.submit>[0]['operation'], ...(pages !== undefined ? { pages } : {}), ...(f.cacheMaxAge ? { cache_max_age: f.cacheMaxAge as '1d' } : {}), ...(f.skipInvalid ? { skipInvalid: true } : {}), ...(f.webhook ? { webhook: f.webhookEvent ? { url: f.webhook, events: f.webhookEvent as (typeof JOB_EVENTS)[number][] } : f.webhook } : {}) };
      // Up to 1,000 lines inline; more (or CSV) as an uploaded file.
      const body = !csv && lines.length <= MAX_INLINE_INPUTS ? { ...base, inputs: lines } : { ...base, inputsUpload: (await api.upload(csv ? text : lines.map((l) => JSON.stringify(l)).join('\n'), csv ? 'csv' : 'jsonl')).data.upload.id };
      const { data } = await api.submit(body, f.idempotencyKey ? { idempotencyKey: f.idempotencyKey } : {});
      const { secret, ...webhook } = data.job.webhook ?? {};
      if (f.webhookSecretOut) {
        if (secret) {
          writeSecret(f.webhookSecretOut, secret);
          process.stderr.write(`social-data: the webhook's signing secret (shown this once) is in ${f.webhookSecretOut}\n`);
        } else process.stderr.write(`social-data: no webhook secret in the answer (an Idempotency-Key replay shows it only the first time); ${f.webhookSecretOut} not written\n`);
      }
      if (!f.wait) return void (print({ ...data, job: { ...data.job, ...(data.job.webhook ? { webhook } : {}) } }), ctx.done());
      const job = await api.wait(data.job.id, { onProgress: (j) => process.stderr.write(progressLine(j)) });
      if (f.download && job.resultsReady) for (const file of await downloadResults(api, job.id, f.download)) process.stderr.write(`social-data: wrote ${file}\n`);
      print({ job });
      ctx.done();
    });
  jobs.command('list').description("The team's jobs, newest first.").action(async (_f: unknown, command: Command) => (print((await ctx.client(command).jobs.list()).data), ctx.done()));
  const one = (name: string, description: string, call: (api: SocialDataClient['jobs'], id: string) => Promise<{ data: unknown }>) =>
    jobs
      .command(name)
      .description(description)
      .argument('<id>', 'the job (job_…)')
      .action(async (id: string, _f: unknown, command: Command) => (print((await call(ctx.client(command).jobs, id)).data), ctx.done()));
  one('get', 'One job: state, inputs done / failed / left, items, credits.', (api, id) => api.get(id));
  one('cancel', 'Cancel the job: no input starts after this.', (api, id) => api.cancel(id));
  one('resume', 'Resume a paused job (after a top-up).', (api, id) => api.resume(id));
  one('deliver', "Write an ended job's files to its destination (your bucket) again, after a failed delivery: once your role or bucket policy is fixed.", (api, id) => api.retryDestination(id));
  jobs
    .command('results')
    .description("The job's result files: short-lived URLs, or with --download the files themselves.")
    .argument('<id>', 'the job (job_…)')
    .option('--download <dir>', 'write the files into this directory')
    .action(async (id: string, f: Flags, command: Command) => {
      const api = ctx.client(command).jobs;
      if (f.download) print({ files: await downloadResults(api, id, f.download) });
      else print((await api.results(id)).data);
      ctx.done();
    });
}
