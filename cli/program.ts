import { Command as Cli, InvalidArgumentError, Option } from 'commander';
import { SocialDataClient, type CacheMaxAge } from '../client';
import { RATE_LIMIT } from '../shared/runtime/config';
import type { ParamDef, ValidationRules } from '../shared/http/validation';
import { accountRead, type AccountRead } from './account';
import { dryRun } from './dry-run';
import { addMonitorCommands } from './monitors';
import { addJobCommands } from './jobs';
import { addWebhookCommands } from './webhooks';
import { readInputs, sameThingOnce } from './inputs';
import { FORMATS, type Format } from './output';
import { startRun, tasksOf, type RunOptions } from './run';
import { COST_RULE, operationCommands, type Command } from './table';
import { EXIT, UsageError } from './usage-error';
import { VIEW_FORMATS, chooseColumns, parseColumns, viewFormat, type ViewFormat } from './view';

/**
 * The `social-data` program (commander): one sub-command per routed operation of the table, named by
 * its id, its parameters as options of the same names; the account reads; help on every level from
 * the table. Option values are checked by the operation's own rules (validateQuery) before anything is
 * sent: a bad one is a usage error that names it (exit code 2).
 */
export const API_KEY_VARIABLE = 'SOCIAL_DATA_API_KEY';
export const API_URL_VARIABLE = 'SOCIAL_DATA_API_URL';
const DEFAULT_CONCURRENCY = 4;
const DEFAULT_RETRIES = 3;
const TEAM_RATE = (RATE_LIMIT.requests * 60) / RATE_LIMIT.windowSeconds;

/** Options of the run itself, which no operation parameter may shadow. */
const RUN_OPTIONS = ['api-key', 'api-url', 'quiet', 'all', 'max-pages', 'max-items', 'cache-max-age', 'input', 'column', 'columns', 'param', 'errors', 'format', 'out', 'resume', 'dry-run', 'concurrency', 'rate', 'retries', 'help'];

export interface Io {
  /** Where a run's exit code goes (the program's actions are async). */
  exit(code: number): void;
  /** Ctrl-C and SIGTERM handlers for the run in progress. */
  onSignal(stop: () => void, abort: () => void): void;
  env: NodeJS.ProcessEnv;
}

const positive = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a whole number of at least 1`);
  return n;
};
const atLeastZero = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a whole number`);
  return n;
};
const optionOf = (param: string) => (param === 'cache_max_age' ? '--cache-max-age' : `--${param}`);

function parametersLine(c: Command): string {
  const params = Object.keys(c.op.params);
  if (!params.length) return 'none (only --cache-max-age)';
  const paired = new Set((c.op.oneOf ?? []).flat());
  const parts = (c.op.oneOf ?? []).map(([a, b]) => `--${a} or --${b} (exactly one)`);
  for (const [name, def] of Object.entries(c.op.params as Record<string, ParamDef>)) {
    if (!paired.has(name)) parts.push(`--${name}${def.required ? ' (required)' : ''}`);
  }
  return parts.join(', ');
}

const pageLine = (c: Command) => (c.cursorParam ? `${c.op.pageSize ?? 'a'} items a page (${c.listField}); --all follows the cursor to the last page` : 'not paged (one answer a request)');

function operationHelp(c: Command): string {
  const batchParams = Object.keys(c.op.params).filter((p) => p !== c.cursorParam);
  return [
    '',
    `Request:    GET ${c.op.path}`,
    `Parameters: ${parametersLine(c)}`,
    `Page size:  ${pageLine(c)}`,
    `Records:    ${c.listField ? `one per item of data.${c.listField}` : 'one per answer (the whole data)'}; CSV columns: ${c.columns.length} (${c.columns.slice(0, 6).map((col) => col.name).join(', ')}${c.columns.length > 6 ? ', …' : ''})`,
    `Cost:       ${COST_RULE}`,
    c.mainParam ? `--input:    each value goes to --${c.mainParam}${batchParams.length > 1 ? ` (--param names another: ${batchParams.filter((p) => p !== c.mainParam).join(', ')})` : ''}` : '--input:    not available (the operation takes no parameter)',
    '',
    `Key and address: $${API_KEY_VARIABLE} (or --api-key) and $${API_URL_VARIABLE} (or --api-url). Exit codes: 0 all succeeded, 1 some inputs failed, 2 usage error (nothing sent), 130 interrupted (--resume continues).`,
  ].join('\n');
}

function programHelp(): string {
  const rows = operationCommands().map((c) => `  ${c.op.id.padEnd(28)} ${parametersLine(c)}; ${c.cursorParam ? `${c.op.pageSize ?? '?'} a page` : 'not paged'}`);
  return [
    '',
    'Operations (parameters; page size):',
    ...rows,
    '',
    `Cost: ${COST_RULE}.`,
    `Key and address: $${API_KEY_VARIABLE} (or --api-key) and $${API_URL_VARIABLE} (or --api-url).`,
    'Examples:',
    '  social-data shortvideo-user-following --handle someuser --all --out following.csv',
    '  social-data microblog-a-user-posts --input handles.txt --all --max-pages 5 --out posts.jsonl',
    '  social-data credits',
    'Every command has --help. Docs: docs/cli.md',
  ].join('\n');
}

interface RunFlags {
  apiKey?: string;
  apiUrl?: string;
  quiet?: boolean;
  all?: boolean;
  maxPages?: number;
  maxItems?: number;
  cacheMaxAge?: string;
  input?: string;
  column?: string;
  columns?: string[];
  param?: string;
  errors?: string;
  format?: Format;
  out?: string;
  resume?: boolean;
  dryRun?: boolean;
  concurrency: number;
  rate: number;
  retries: number;
  [param: string]: unknown;
}

/** The run's options from the flags, every usage error found before anything is sent. */
export function runOptions(c: Command, flags: RunFlags, env: NodeJS.ProcessEnv): RunOptions & { dryRun: boolean } {
  const params: Record<string, string> = {};
  for (const name of Object.keys(c.op.params)) if (flags[name] !== undefined) params[name] = String(flags[name]);

  let batch: RunOptions['batch'];
  if (flags.input !== undefined) {
    if (!c.mainParam) throw new UsageError(`--input: ${c.op.id} takes no parameter for the values to fill`);
    const param = flags.param ?? c.mainParam;
    if (!Object.hasOwn(c.op.params, param) || param === c.cursorParam) throw new UsageError(`--param ${param}: not a parameter the values can fill (${Object.keys(c.op.params).filter((p) => p !== c.cursorParam).join(', ')})`);
    if (params[param] !== undefined) throw new UsageError(`--${param}: given by --input already (one value a line)`);
    const partner = (c.op.oneOf ?? []).find((pair) => pair.includes(param))?.find((p) => p !== param);
    if (partner && params[partner] !== undefined) throw new UsageError(`--${partner}: --input gives ${param}, and ${c.op.id} takes exactly one of ${param} or ${partner}`);
    const { sameAs, ...inputs } = sameThingOnce({ id: c.op.id, params: c.op.params, oneOf: c.op.oneOf }, params, param, readInputs(flags.input, flags.column));
    batch = { param, ...inputs, sameAs };
  } else {
    if (flags.column !== undefined) throw new UsageError('--column: only with --input');
    if (flags.param !== undefined) throw new UsageError('--param: only with --input');
  }

  const format: Format = flags.format ?? (flags.out?.toLowerCase().endsWith('.csv') ? 'csv' : flags.out?.toLowerCase().endsWith('.json') ? 'json' : 'jsonl');
  if (flags.resume && !flags.out) throw new UsageError('--resume: only with --out (the state is kept next to the output file)');

  let columns: string[] | undefined;
  if (flags.columns) {
    if (format !== 'csv') throw new UsageError('--columns: chooses CSV columns (--format csv, or an --out ending in .csv)');
    columns = chooseColumns([...(batch ? ['input'] : []), ...c.columns.map((col) => col.name)], flags.columns);
    // --resume reads back the items an input in progress wrote, by these columns (state.ts itemKey).
    const readBack = [...(batch ? ['input'] : []), ...(c.listField ? ['id', 'repostedAt'].filter((n) => c.columns.some((col) => col.name === n)) : [])];
    const missing = readBack.filter((n) => !columns!.includes(n));
    if (flags.resume && missing.length) throw new UsageError(`--resume with --columns: keep ${missing.join(', ')}, by which the items written already are told apart`);
  }

  const options = {
    command: c,
    params,
    batch,
    all: Boolean(flags.all),
    maxPages: flags.maxPages,
    maxItems: flags.maxItems,
    cacheMaxAge: flags.cacheMaxAge as CacheMaxAge | undefined,
    format,
    columns,
    out: flags.out,
    errors: flags.errors,
    resume: Boolean(flags.resume),
    quiet: Boolean(flags.quiet),
    concurrency: flags.concurrency,
    rate: flags.rate,
    retries: flags.retries,
    apiKey: flags.apiKey ?? env[API_KEY_VARIABLE] ?? '',
    apiUrl: flags.apiUrl ?? env[API_URL_VARIABLE] ?? '',
    dryRun: Boolean(flags.dryRun),
  };

  // The operation's own rules, on every input's query: what is wrong whatever the input is a usage
  // error; what is wrong with an input's own value makes that input fail (in the errors file).
  const inputParams = new Set(batch ? [batch.param] : []);
  for (const task of tasksOf(options)) {
    if (!task.invalid) continue;
    if (task.invalid.code === 'BAD_REQUEST') throw new UsageError(`--${c.cursorParam ?? 'cursor'}: ${task.invalid.message}`);
    const aboutOptions = (task.invalid.details ?? []).filter((d) => !inputParams.has(d.path));
    if (aboutOptions.length) throw new UsageError(aboutOptions.map((d) => `${optionOf(d.path)}: ${d.message}`).join('; '));
  }

  if (!options.dryRun) {
    if (!options.apiUrl) throw new UsageError(`no API address: set $${API_URL_VARIABLE} or give --api-url (e.g. http://localhost:3000 for npm start)`);
    if (!options.apiKey) throw new UsageError(`no API key: set $${API_KEY_VARIABLE} or give --api-key`);
  }
  return options;
}

function addRunOptions(cmd: Cli): Cli {
  return cmd
    .option('--all', 'follow the cursor to the last page (items an earlier page had are left out)')
    .option('--max-pages <n>', 'with --all: at most this many pages an input', positive('--max-pages'))
    .option('--max-items <n>', 'at most this many items an input', positive('--max-items'))
    .option('--cache-max-age <age>', 'accept a cached result at most this old (1d, 3d, 7d, 14d, 30d): a hit costs 0 credits')
    .option('--input <file>', 'run once per value of the file: one a line, or a CSV column (--column)')
    .option('--column <name>', 'with --input: the CSV column holding the values')
    .option('--columns <names>', 'CSV output: these columns, comma-separated, in that order (default: every column of the schema)', parseColumns)
    .option('--param <name>', 'with --input: the parameter the values fill (default: the main one)')
    .option('--errors <file>', 'with --input: where failed inputs go, a JSON line each (default: <out>.errors.jsonl)')
    .addOption(new Option('--format <format>', 'output format (default: from --out\'s extension, else jsonl)').choices(FORMATS))
    .option('--out <file>', 'write to this file (default: standard output)')
    .option('--resume', 'continue the interrupted run that wrote --out (its state: <out>.state.json)')
    .option('--dry-run', 'print the requests and the most credits they could cost; send nothing')
    .option('--concurrency <n>', 'inputs run at the same time', positive('--concurrency'), DEFAULT_CONCURRENCY)
    .option('--rate <n>', "requests per minute the run may send (the team's limit)", positive('--rate'), TEAM_RATE)
    .option('--retries <n>', 'further attempts after a 429 or 503, each after its Retry-After', atLeastZero('--retries'), DEFAULT_RETRIES);
}

export function buildProgram(io: Io): Cli {
  const program = new Cli('social-data')
    .description('Command-line client of the Social data API: any operation, every page, many inputs, to JSON Lines, JSON or CSV.')
    .option('--api-key <key>', `API key (default: $${API_KEY_VARIABLE})`)
    .option('--api-url <url>', `API address, e.g. https://…/prod or http://localhost:3000 (default: $${API_URL_VARIABLE})`)
    .option('-q, --quiet', 'no progress bar and no closing summary')
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError('(add --help for the options)')
    .exitOverride()
    .addHelpText('after', programHelp());

  for (const c of operationCommands()) {
    const cmd = program.command(c.op.id).description(c.op.summary);
    for (const [name, def] of Object.entries(c.op.params as Record<string, ParamDef>)) {
      if (RUN_OPTIONS.includes(name)) throw new Error(`${c.op.id}: the parameter ${name} would shadow the option --${name}`);
      const pair = (c.op.oneOf as ValidationRules['oneOf'])?.find((p) => p.includes(name));
      const note = def.required ? ' (required)' : pair ? ` (exactly one of --${pair[0]} or --${pair[1]})` : '';
      cmd.option(`--${name} <value>`, `${def.description}${note}${def.example ? `, e.g. ${def.example}` : ''}`);
    }
    addRunOptions(cmd).addHelpText('after', operationHelp(c));
    cmd.action(async (_flags: unknown, self: Cli) => {
      const options = runOptions(c, self.optsWithGlobals<RunFlags>(), io.env);
      if (options.dryRun) {
        process.stdout.write(dryRun(options));
        return io.exit(EXIT.ok);
      }
      const runner = startRun(options);
      io.onSignal(runner.stop, runner.abort);
      io.exit(await runner.done);
    });
  }

  const account = (name: AccountRead, description: string, tabled = true) => {
    const cmd = program
      .command(name)
      .description(description)
      .option('--out <file>', 'write to this file (default: standard output)');
    if (!tabled) return cmd;
    return cmd
      .addOption(new Option('--format <format>', 'table or json (default: a table at a terminal, else JSON)').choices(VIEW_FORMATS))
      .option('--columns <names>', "the table's columns, comma-separated", parseColumns);
  };
  /** The API's address and the key of a command (its options, else the variables); the key only where it is needed. */
  const target = (self: Cli, needsKey: boolean) => {
    const flags = self.optsWithGlobals<{ apiKey?: string; apiUrl?: string; out?: string; format?: ViewFormat; columns?: string[] }>();
    const apiUrl = flags.apiUrl ?? io.env[API_URL_VARIABLE];
    const apiKey = flags.apiKey ?? io.env[API_KEY_VARIABLE];
    if (!apiUrl) throw new UsageError(`no API address: set $${API_URL_VARIABLE} or give --api-url`);
    if (!apiKey && needsKey) throw new UsageError(`no API key: set $${API_KEY_VARIABLE} or give --api-key`);
    const format = viewFormat(flags.format, flags.out);
    if (flags.columns && format !== 'table') throw new UsageError("--columns: chooses a table's columns (--format table; JSON is the API's data as it is)");
    return { apiUrl, apiKey, out: flags.out, format, columns: flags.columns };
  };
  const readAccount = async (read: AccountRead, self: Cli, extra: Parameters<typeof accountRead>[1] extends infer O ? Partial<O> : never) => {
    await accountRead(read, { ...target(self, read !== 'status'), ...extra });
    io.exit(EXIT.ok);
  };
  account('credits', "The team's balance and latest charges (free).").action((_f, self: Cli) => readAccount('credits', self, {}));
  account('usage', "The team's answers per day and operation (free).")
    .option('--days <n>', 'days back, today included (1 to 90; default 30)', positive('--days'))
    .action((f: { days?: number }, self: Cli) => readAccount('usage', self, { days: f.days }));
  account('requests', "The team's request history of the last 7 days, newest first (free).")
    .option('--operation <id>', 'only this operation')
    .option('--status <status>', 'only this HTTP status, or error')
    .option('--limit <n>', 'records a page (1 to 100)', positive('--limit'))
    .option('--all', 'every page, one record a line (JSON Lines)')
    .action((f: { operation?: string; status?: string; limit?: number; all?: boolean }, self: Cli) =>
      readAccount('requests', self, { all: f.all, filter: { operation: f.operation, status: f.status === 'error' || f.status === undefined ? f.status : Number(f.status), limit: f.limit } }),
    );
  account('status', "Each operation's state over 15 minutes and 24 hours, and its last canary (public, no key).", false).action((_f, self: Cli) => readAccount('status', self, {}));
  const keyed = {
    client: (self: Cli) => {
      const { apiUrl, apiKey } = target(self, true);
      return new SocialDataClient({ baseUrl: apiUrl, apiKey: apiKey! });
    },
    done: () => io.exit(EXIT.ok),
  };
  addMonitorCommands(program, keyed);
  addWebhookCommands(program, keyed);
  addJobCommands(program, keyed);
  return program;
}
