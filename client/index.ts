/**
 * A typed TypeScript client for the Social data API: one method per operation, parameters and
 * results typed from the operation table's schemas (type-only imports: nothing of the server is
 * bundled), typed errors, optional retries that honour Retry-After on 429 and 503, and `for await`
 * over every page of the cursor operations. Runs wherever `fetch` exists (Node 20+, browsers).
 *
 * The base URL keeps its path (the stack's ApiUrl output ends in its stage, `/prod`); without a
 * scheme it is https, and plain http is accepted only for a server on this machine (`npm start`),
 * so the key never crosses a network in clear. Redirects are followed only within the base's
 * origin: the key is never sent to another one.
 *
 *   const api = new SocialDataClient({ baseUrl: 'http://localhost:3000', apiKey: process.env.API_KEY! });
 *   const { data } = await api.livestreamClip({ url: 'https://kick.com/someone/clips/clip_…' });
 *   for await (const page of api.pages.microblogAUserPosts({ handle: 'bsky.app' })) console.log(page.data.posts.length);
 *
 * The team's own account, with the same key and free of charge: `api.account.credits()`,
 * `api.account.usage({ days: 7 })`, `api.account.requests({ status: 'error' })` (7 days of history,
 * newest first) and `for await (const page of api.account.requestPages({ operation: '…' }))`.
 *
 * The team's monitors (docs/monitors.md), free: `api.monitors.create({ operation, params,
 * intervalSeconds, webhookUrl })` (its `secret` is in that answer only), `list`, `get`, `update`
 * (or `pause` / `resume`), `remove`, `rotateSecret`, `transfer`, `test`, `deliveries`, `redeliver`.
 *
 * The team's webhook endpoints (docs/webhooks.md), free: `api.webhooks.create({ url, types })` (its
 * `secret` is in that answer only), `list`, `get`, `update`, `remove`, `rotateSecret`, `test`,
 * `deliveries`, `delivery`, `redeliver`, and `settings` / `updateSettings` (the credits.low threshold).
 *
 * The team's bulk jobs (docs/jobs.md): `api.jobs.submit({ operation, inputs, pages })` (each live
 * page 1 credit when it runs; `{ idempotencyKey }` makes a retried submit return the same job),
 * `upload(text, 'jsonl' | 'csv')` then `submit({ operation, inputsUpload })` for up to 100,000,
 * `list`, `get`, `cancel`, `resume`, `results` (short-lived URLs of the files), `retryDestination` (a failed
 * delivery to your own bucket, again), `wait(id)`.
 *
 * In a page served from the API's own origin (the dashboard), `new SocialDataClient({ baseUrl,
 * session: true })` sends no key: the browser's session cookie is the credential, and `api.session`
 * holds the routes only a session may call (sign-in, the team's keys and members).
 */
import type { CreditsReport, RequestsReport } from '../shared/api/account-reads';
import type { Meta } from '../shared/http/envelope';
import type { ErrorCode, ValidationDetail } from '../shared/http/errors';
import type { OperationStatus, StatusDocument } from '../shared/status/page';
import type { DataOf, OperationEntry, OperationId } from '../shared/operations';
import type { UsageReport } from '../shared/accounting/usage';
import type { CacheMaxAge, RequiredNames } from '../shared/http/validation';
import type { publicDelivery, publicMonitor } from '../shared/monitors/api';
import type { MonitorableId } from '../shared/api/monitor-kinds';
import type { AccountMe, publicKey } from '../shared/account/api';
import type { AccountRoute } from '../shared/api/account-routes';
import type { publicMember, publicSession } from '../shared/account/team';
import type { publicJob } from '../shared/jobs/api';
import type { publicDeliveryWithAttempts } from '../shared/monitors/shapes';
import type { publicEndpoint } from '../shared/webhooks/shapes';
import { JOB_ROUTES, MONITOR_ROUTES, OPERATIONS, TEAM_EVENT_TYPES, WEBHOOK_ROUTES } from './operations.gen';

export { JOB_ROUTES, MONITOR_ROUTES, OPERATIONS, TEAM_EVENT_TYPES, WEBHOOK_ROUTES };
export type { CacheMaxAge, CreditsReport, ErrorCode, Meta, MonitorableId, OperationStatus, RequestsReport, StatusDocument, UsageReport };

/** An answer of the account API: `data` only (it costs nothing, so there is no `meta`). */
export interface AccountResult<T> {
  data: T;
}

/** The request history's filters and paging (GET /v1/account/requests). */
export interface RequestsFilter {
  /** An operation id, e.g. `livestream-clip`. */
  operation?: string;
  /** One HTTP status, or `error` for every error answer. */
  status?: number | 'error';
  /** Whose request it was: `request` (made with a key), `monitor` (a monitor's poll) or `job` (a bulk job's page). */
  source?: 'request' | 'monitor' | 'job';
  /** 1 to 100 (default 50). */
  limit?: number;
  cursor?: string;
}

/** The team's own account, read with the client's key (free). */
export interface AccountMethods {
  credits(options?: Pick<CallOptions, 'signal'>): Promise<AccountResult<CreditsReport>>;
  /** `days`: 1 to 90, today included (default 30). */
  usage(params?: { days?: number }, options?: Pick<CallOptions, 'signal'>): Promise<AccountResult<UsageReport>>;
  requests(params?: RequestsFilter, options?: Pick<CallOptions, 'signal'>): Promise<AccountResult<RequestsReport>>;
  /** Every page of the history, newest first, following the cursor. */
  requestPages(params?: Omit<RequestsFilter, 'cursor'>, options?: Pick<CallOptions, 'signal'>): AsyncGenerator<AccountResult<RequestsReport>, void, undefined>;
}
/** A monitor as the API answers it. */
export type Monitor = ReturnType<typeof publicMonitor>;
/** A monitor with its signing secret (`whsec_…`): the answer of `create` and `rotateSecret` only. */
export type MonitorWithSecret = Monitor & { secret: string };
/** An event of a monitor and its delivery (the last 7 days). */
export type MonitorDelivery = ReturnType<typeof publicDelivery>;

/** What `monitors.create` takes (POST /v1/monitors). */
export interface NewMonitor {
  operation: MonitorableId;
  /** The operation's query parameters (no `cursor`, no `cache_max_age`). */
  params?: Record<string, string>;
  /** 60 to 86,400. */
  intervalSeconds: number;
  /** https on a public address. */
  webhookUrl: string;
}

/** What `monitors.update` changes (PATCH /v1/monitors/{id}): pause or resume, the interval, the webhook URL. */
export interface MonitorChanges {
  status?: Monitor['status'];
  intervalSeconds?: number;
  webhookUrl?: string;
}

type Signal = Pick<CallOptions, 'signal'>;

/** The team's monitors, managed with the client's key (free). Another team's monitor is a 404 ApiClientError. */
export interface MonitorMethods {
  create(monitor: NewMonitor, options?: Signal): Promise<AccountResult<{ monitor: MonitorWithSecret }>>;
  /** Newest first. */
  list(options?: Signal): Promise<AccountResult<{ monitors: Monitor[] }>>;
  get(id: string, options?: Signal): Promise<AccountResult<{ monitor: Monitor }>>;
  update(id: string, changes: MonitorChanges, options?: Signal): Promise<AccountResult<{ monitor: Monitor }>>;
  /** `update(id, { status: 'paused' })` */
  pause(id: string, options?: Signal): Promise<AccountResult<{ monitor: Monitor }>>;
  /** `update(id, { status: 'active' })`: polls at once. */
  resume(id: string, options?: Signal): Promise<AccountResult<{ monitor: Monitor }>>;
  remove(id: string, options?: Signal): Promise<AccountResult<{ deleted: true; id: string }>>;
  /** A new secret, in this answer only; for 24 h the old one signs too (previousSecretExpiresAt). */
  rotateSecret(id: string, options?: Signal): Promise<AccountResult<{ monitor: MonitorWithSecret }>>;
  /** Binds the monitor to this client's key from now on (revoking the key it was created with no longer pauses it). */
  transfer(id: string, options?: Signal): Promise<AccountResult<{ monitor: Monitor }>>;
  /** Queues a `monitor.test` event, due now (202, pending; one test or redelivery per monitor every 5 s). */
  test(id: string, options?: Signal): Promise<AccountResult<{ delivery: MonitorDelivery }>>;
  /** The last 7 days, newest first. */
  deliveries(id: string, options?: Signal): Promise<AccountResult<{ deliveries: MonitorDelivery[] }>>;
  /** Sends an event again, with the same `webhook-id` (202). */
  redeliver(id: string, eventId: string, options?: Signal): Promise<AccountResult<{ delivery: MonitorDelivery }>>;
}

/** A bulk job (GET /v1/jobs/{id}). */
export type Job = ReturnType<typeof publicJob>;
/** What `jobs.submit` takes (POST /v1/jobs): inline inputs (up to 1,000) or an uploaded file's id. */
export interface NewJob {
  operation: OperationId;
  inputs?: (string | Record<string, string>)[];
  inputsUpload?: string;
  /** Pages per input (default 1), or every page. */
  pages?: number | 'all';
  cache_max_age?: CacheMaxAge;
  /** Run the valid inputs and list the invalid ones in the errors file, instead of a 422. */
  skipInvalid?: boolean;
  /** Also write the files to your own bucket, as your role (docs/jobs.md); externalId from `jobs.destination()`. */
  destination?: { type: 's3'; bucket: string; prefix?: string; roleArn: string; externalId: string };
  /**
   * The job's own webhook (docs/jobs.md): its events (job.succeeded, job.failed, job.paused; or those in
   * `events`) are POSTed there too, signed with a secret the 201 answer shows once (`job.webhook.secret`).
   * Public https only.
   */
  webhook?: string | { url: string; events?: ('job.succeeded' | 'job.failed' | 'job.paused')[] };
}
/** A job as `jobs.submit` answers a new one: with its webhook's signing secret (this answer only; not on an Idempotency-Key replay). */
export type NewJobResult = Omit<Job, 'webhook'> & { webhook?: NonNullable<Job['webhook']> & { secret?: string } };
/** Your team's external ID and the principals your role trusts (GET /v1/jobs/destination). */
export interface JobDestinationInfo {
  type: 's3';
  externalId: string;
  principals: string[];
  sessionNamePrefix: string;
  available: boolean;
  trustPolicy: Record<string, unknown> | null;
}
export interface JobFile {
  name: 'items.jsonl' | 'items.csv' | 'errors.jsonl' | 'errors.csv';
  contentType: string;
  /** Pre-signed, short-lived: fetch it without the key. */
  url: string;
  expiresAt: string;
}
export interface JobUpload {
  id: string;
  url: string;
  method: 'PUT';
  headers: Record<string, string>;
  format: 'jsonl' | 'csv';
  expiresAt: string;
  maxBytes: number;
  maxInputs: number;
}

/** The team's bulk jobs (free to manage; each input's live pages cost 1 credit each when they run). Another team's job is a 404 ApiClientError. */
export interface JobMethods {
  submit(job: NewJob, options?: Signal & { idempotencyKey?: string }): Promise<AccountResult<{ job: NewJobResult }>>;
  /** A pre-signed URL, then the file PUT to it; its id is `inputsUpload` of a submit. */
  upload(text: string, format?: 'jsonl' | 'csv', options?: Signal): Promise<AccountResult<{ upload: JobUpload }>>;
  list(options?: Signal): Promise<AccountResult<{ jobs: Job[] }>>;
  get(id: string, options?: Signal): Promise<AccountResult<{ job: Job }>>;
  cancel(id: string, options?: Signal): Promise<AccountResult<{ job: Job }>>;
  resume(id: string, options?: Signal): Promise<AccountResult<{ job: Job }>>;
  results(id: string, options?: Signal): Promise<AccountResult<{ files: JobFile[]; keptUntil: string }>>;
  /** Writes an ended job's files to its destination again after a failed delivery (your role or bucket fixed); the job with the new outcome. */
  retryDestination(id: string, options?: Signal): Promise<AccountResult<{ job: Job }>>;
  /** The team's external ID for `destination` (the same every time) and the principals its role must trust. */
  destination(options?: Signal): Promise<AccountResult<{ destination: JobDestinationInfo }>>;
  /** Reads the job every `everyMs` (default 2 s) until it ends or pauses. */
  wait(id: string, options?: Signal & { everyMs?: number; onProgress?: (job: Job) => void }): Promise<Job>;
}

/** A type of event a team webhook endpoint may want (docs/webhooks.md lists them). */
export type TeamEventType = (typeof TEAM_EVENT_TYPES)[number];
/** A team webhook endpoint as the API answers it. */
export type WebhookEndpoint = ReturnType<typeof publicEndpoint>;
/** An endpoint with its signing secret (`whsec_…`): the answer of `create` and `rotateSecret` only. */
export type WebhookEndpointWithSecret = WebhookEndpoint & { secret: string };
/** An event sent to an endpoint and its delivery (the last 7 days). */
export type WebhookDelivery = MonitorDelivery;
/** One delivery with its recent attempts (time, status, latency, error). */
export type WebhookDeliveryWithAttempts = ReturnType<typeof publicDeliveryWithAttempts>;
/** The team's credits.low threshold and what was last announced of its balance. */
export interface WebhookSettings {
  creditsLowThreshold: number | null;
  creditAlert: 'low' | 'exhausted' | null;
}

/** The team's webhook endpoints, managed with the client's key (free). Another team's endpoint is a 404 ApiClientError. */
export interface WebhookMethods {
  create(endpoint: { url: string; types: TeamEventType[]; description?: string }, options?: Signal): Promise<AccountResult<{ endpoint: WebhookEndpointWithSecret }>>;
  /** Newest first. */
  list(options?: Signal): Promise<AccountResult<{ endpoints: WebhookEndpoint[] }>>;
  get(id: string, options?: Signal): Promise<AccountResult<{ endpoint: WebhookEndpoint }>>;
  /** Its URL, types or description; `status: 'disabled'` holds its deliveries until `'active'` again. */
  update(id: string, changes: { url?: string; types?: TeamEventType[]; description?: string; status?: 'active' | 'disabled' }, options?: Signal): Promise<AccountResult<{ endpoint: WebhookEndpoint }>>;
  remove(id: string, options?: Signal): Promise<AccountResult<{ deleted: true; id: string }>>;
  /** A new secret, in this answer only; for 24 h the old one signs too (previousSecretExpiresAt). */
  rotateSecret(id: string, options?: Signal): Promise<AccountResult<{ endpoint: WebhookEndpointWithSecret }>>;
  /** Queues a `webhook.test` event to this endpoint, due now (202). */
  test(id: string, options?: Signal): Promise<AccountResult<{ delivery: WebhookDelivery }>>;
  /** The last 7 days, newest first. */
  deliveries(id: string, options?: Signal): Promise<AccountResult<{ deliveries: WebhookDelivery[] }>>;
  delivery(id: string, eventId: string, options?: Signal): Promise<AccountResult<{ delivery: WebhookDeliveryWithAttempts }>>;
  /** Sends an event again, with the same `webhook-id` (202). */
  redeliver(id: string, eventId: string, options?: Signal): Promise<AccountResult<{ delivery: WebhookDelivery }>>;
  settings(options?: Signal): Promise<AccountResult<{ settings: WebhookSettings }>>;
  /** credits.low is sent when the balance falls below `creditsLowThreshold` (null: never). */
  updateSettings(settings: { creditsLowThreshold: number | null }, options?: Signal): Promise<AccountResult<{ settings: WebhookSettings }>>;
}

/** The signed-in member (GET /v1/account/me, and the answer of a sign-in). */
export type Member = AccountMe;
/** A key of the team; `secret` only in the answer that created it. */
export type AccountKey = ReturnType<typeof publicKey> & { secret?: string };
export type TeamMember = ReturnType<typeof publicMember>;
export type MemberSession = ReturnType<typeof publicSession>;

/** The account routes only a session may call (the dashboard's): sign-in and password, the team's keys and members. */
export interface SessionMethods {
  me(): Promise<AccountResult<Member>>;
  signIn(email: string, password: string): Promise<AccountResult<Member>>;
  signOut(): Promise<AccountResult<{ signedOut: true }>>;
  /** With the token of an invitation link. */
  setPassword(token: string, password: string): Promise<AccountResult<{ email: string }>>;
  changePassword(currentPassword: string, password: string): Promise<AccountResult<{ passwordChanged: true }>>;
  keys(): Promise<AccountResult<{ keys: AccountKey[] }>>;
  createKey(name: string): Promise<AccountResult<{ key: AccountKey & { secret: string } }>>;
  renameKey(keyId: string, name: string): Promise<AccountResult<{ key: AccountKey }>>;
  revokeKey(keyId: string): Promise<AccountResult<{ key: AccountKey }>>;
  members(): Promise<AccountResult<{ members: TeamMember[] }>>;
  removeMember(memberId: string): Promise<AccountResult<{ removed: { memberId: string; email: string }; keys: { revoked: string[]; transferred: string[] } }>>;
  sessions(memberId: string): Promise<AccountResult<{ sessions: MemberSession[] }>>;
  endSessions(memberId: string): Promise<AccountResult<{ sessions: MemberSession[] }>>;
  endSession(memberId: string, sessionId: string): Promise<AccountResult<{ ended: { sessionId: string } }>>;
}

/** An account route's method and path, checked against the server's route table (shared/api/account-routes.ts) by the compiler. */
type AccountRouteOf<N extends AccountRoute['name']> = Extract<AccountRoute, { name: N }>;
const accountRoute = <N extends AccountRoute['name']>(_name: N, method: AccountRouteOf<N>['method'], path: AccountRouteOf<N>['path']) => ({ method, path });

type MethodName = keyof typeof OPERATIONS;
type IdOf<M extends MethodName> = (typeof OPERATIONS)[M]['id'] & OperationId;
type Params<Id extends OperationId> = OperationEntry<Id>['params'];
type Value = string | number | boolean;

/** What a caller sends: the operation's query parameters (values are sent as text). */
export type InputOf<Id extends OperationId> = { [K in RequiredNames<Params<Id>> & string]: Value } & {
  [K in Exclude<keyof Params<Id>, RequiredNames<Params<Id>>> & string]?: Value;
};

/** The success envelope of an operation. */
export interface Result<Id extends OperationId> {
  data: DataOf<Id> & { fetchedAt: string };
  meta: Meta;
}

export interface CallOptions {
  /** Accept a cached result at most this old (0 credits on a hit). */
  cacheMaxAge?: CacheMaxAge;
  signal?: AbortSignal;
}

export interface RetryOptions {
  /** Attempts in all, the first included (default 3). */
  attempts?: number;
  /** The longest wait between attempts; a longer Retry-After ends the retries (default 30 s). */
  maxDelayMs?: number;
}

export interface ClientOptions {
  /** e.g. `https://abc.execute-api.eu-west-1.amazonaws.com/prod` (https is assumed without a scheme), or `http://localhost:3000`. */
  baseUrl: string;
  /** Required unless `session`. */
  apiKey?: string;
  /** In a page of the API's own origin: no key is sent, the browser's session cookie is the credential. */
  session?: boolean;
  /** Send the key as `Authorization: Bearer` instead of `x-api-key`. */
  bearer?: boolean;
  /** Retry 429 and 503 after their Retry-After; `false` turns retries off. Default on. */
  retry?: RetryOptions | false;
  /** Default for every call. */
  cacheMaxAge?: CacheMaxAge;
  fetch?: typeof fetch;
  /**
   * Awaited before every attempt, retries included: where a caller that runs many requests waits
   * for its turn (a rate limiter shared by its requests, as the `social-data` command line does).
   */
  beforeRequest?: (url: URL, signal?: AbortSignal) => Promise<void> | void;
  /**
   * Called with every answer, before its body is read: its status and headers (`Retry-After`, the
   * local gateway's `RateLimit-*`), for a caller that paces itself on them.
   */
  onResponse?: (response: Response, url: URL) => void;
}

/** One problem of a 422 VALIDATION_ERROR: `path` names the parameter or body field (e.g. `params.handle`). */
export type ErrorDetail = ValidationDetail;

/** An error answer of the API, typed. */
export class ApiClientError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly requestId: string,
    readonly details?: ErrorDetail[],
    /** Seconds, from the Retry-After header (429, 503). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ApiClientError';
  }
}

/** A host on this machine, where plain http keeps the key off the network. */
const isLoopback = (hostname: string) => hostname === 'localhost' || hostname.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(hostname) || hostname === '[::1]';

/** The base URL, checked and ending in `/` so that operation paths are resolved below its path. */
export function apiBase(input: string): URL {
  const trimmed = input.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`);
  } catch {
    throw new Error(`Invalid base URL: ${JSON.stringify(input)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`The base URL must be https (got ${url.protocol})`);
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new Error(`Plain http is accepted only for a server on this machine; the API key would cross the network in clear: use https://${url.host}${url.pathname}`);
  }
  if (url.username || url.password || url.search || url.hash) throw new Error('The base URL takes no user, password, query or fragment');
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/`;
  return url;
}

const MAX_REDIRECTS = 5;

type Methods = { [M in MethodName]: (params: InputOf<IdOf<M>>, options?: CallOptions) => Promise<Result<IdOf<M>>> };
type CursorMethod = { [M in MethodName]: (typeof OPERATIONS)[M] extends { cursor: string } ? M : never }[MethodName];
type Pages = { [M in CursorMethod]: (params: InputOf<IdOf<M>>, options?: CallOptions) => AsyncGenerator<Result<IdOf<M>>, void, undefined> };

export interface SocialDataClient extends Methods {}
export class SocialDataClient {
  /** `for await (const page of client.pages.<method>(params))`: every page of a cursor operation. */
  readonly pages: Pages;
  /** The team's own account: balance, usage and request history (free). */
  readonly account: AccountMethods;
  /** The team's monitors (free). */
  readonly monitors: MonitorMethods;
  /** The team's bulk jobs. */
  readonly jobs: JobMethods;
  /** The team's webhook endpoints for account and service events (free). */
  readonly webhooks: WebhookMethods;
  /** The routes only a dashboard session may call (`session: true`). */
  readonly session: SessionMethods;
  private readonly fetchImpl: typeof fetch;
  private readonly base: URL;

  constructor(private readonly options: ClientOptions) {
    if (!options.session && typeof options.apiKey !== 'string') throw new Error('An apiKey is required (or session: true, in a page of the API\'s origin)');
    this.base = apiBase(options.baseUrl);
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    const pages: Record<string, unknown> = {};
    for (const [method, entry] of Object.entries(OPERATIONS) as [MethodName, (typeof OPERATIONS)[MethodName]][]) {
      (this as unknown as Record<string, unknown>)[method] = (params: Record<string, Value>, opts?: CallOptions) => this.call(entry.path, params, opts);
      if ('cursor' in entry) pages[method] = (params: Record<string, Value>, opts?: CallOptions) => this.paginate(entry.path, entry.cursor, params, opts);
    }
    this.pages = pages as Pages;
    const read = <T>(path: string, params: Record<string, Value | undefined>, signal?: AbortSignal) => this.call<AccountResult<T>>(path, params, { signal, noCache: true });
    this.account = {
      credits: (options) => read<CreditsReport>('/v1/account/credits', {}, options?.signal),
      usage: (params = {}, options) => read<UsageReport>('/v1/account/usage', { ...params }, options?.signal),
      requests: (params = {}, options) => read<RequestsReport>('/v1/account/requests', { ...params }, options?.signal),
      requestPages: async function* (params = {}, options) {
        let cursor: string | undefined;
        for (;;) {
          const page = await read<RequestsReport>('/v1/account/requests', { ...params, cursor }, options?.signal);
          yield page;
          if (!page.data.cursor) return;
          cursor = page.data.cursor;
        }
      },
    };
    const monitor = <T>(name: keyof typeof MONITOR_ROUTES, ids: string[], options?: Signal, body?: object) => {
      const { method, path } = MONITOR_ROUTES[name];
      let i = 0;
      const url = new URL(path.replace(/\{\w+\}/g, () => encodeURIComponent(ids[i++] ?? '')).replace(/^\/+/, ''), this.base);
      return this.request<AccountResult<T>>(method, url, body, options?.signal);
    };
    this.monitors = {
      create: (m, options) => monitor('create', [], options, m),
      list: (options) => monitor('list', [], options),
      get: (id, options) => monitor('get', [id], options),
      update: (id, changes, options) => monitor('update', [id], options, changes),
      pause: (id, options) => this.monitors.update(id, { status: 'paused' }, options),
      resume: (id, options) => this.monitors.update(id, { status: 'active' }, options),
      remove: (id, options) => monitor('remove', [id], options),
      rotateSecret: (id, options) => monitor('rotateSecret', [id], options),
      transfer: (id, options) => monitor('transfer', [id], options),
      test: (id, options) => monitor('test', [id], options),
      deliveries: (id, options) => monitor('deliveries', [id], options),
      redeliver: (id, eventId, options) => monitor('redeliver', [id, eventId], options),
    };
    const job = <T>(name: keyof typeof JOB_ROUTES, ids: string[], options?: Signal, body?: object, headers?: Record<string, string>) => {
      const { method, path } = JOB_ROUTES[name];
      let i = 0;
      const url = new URL(path.replace(/\{\w+\}/g, () => encodeURIComponent(ids[i++] ?? '')).replace(/^\/+/, ''), this.base);
      return this.request<AccountResult<T>>(method, url, body, options?.signal, headers);
    };
    this.jobs = {
      submit: (j, options) => job('submit', [], options, j, options?.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : undefined),
      upload: async (text, format = 'jsonl', options) => {
        const made = await job<{ upload: JobUpload }>('upload', [], options, { format });
        const put = await this.fetchImpl(made.data.upload.url, { method: 'PUT', headers: made.data.upload.headers, body: text, signal: options?.signal });
        if (!put.ok) throw new ApiClientError(put.status, 'BAD_REQUEST', `The upload was refused (HTTP ${put.status})`, '');
        return made;
      },
      list: (options) => job('list', [], options),
      get: (id, options) => job('get', [id], options),
      cancel: (id, options) => job('cancel', [id], options, {}),
      resume: (id, options) => job('resume', [id], options, {}),
      results: (id, options) => job('results', [id], options),
      retryDestination: (id, options) => job('retryDestination', [id], options, {}),
      destination: (options) => job('destination', [], options),
      wait: async (id, options) => {
        for (;;) {
          const { data } = await this.jobs.get(id, options);
          options?.onProgress?.(data.job);
          if (!['queued', 'running'].includes(data.job.state)) return data.job;
          await sleep(options?.everyMs ?? 2000, options?.signal);
        }
      },
    };
    const hook = <T>(name: keyof typeof WEBHOOK_ROUTES, ids: string[], options?: Signal, body?: object) => {
      const { method, path } = WEBHOOK_ROUTES[name];
      let i = 0;
      const url = new URL(path.replace(/\{\w+\}/g, () => encodeURIComponent(ids[i++] ?? '')).replace(/^\/+/, ''), this.base);
      return this.request<AccountResult<T>>(method, url, body, options?.signal);
    };
    this.webhooks = {
      create: (e, options) => hook('create', [], options, e),
      list: (options) => hook('list', [], options),
      get: (id, options) => hook('get', [id], options),
      update: (id, changes, options) => hook('update', [id], options, changes),
      remove: (id, options) => hook('remove', [id], options),
      rotateSecret: (id, options) => hook('rotateSecret', [id], options, {}),
      test: (id, options) => hook('test', [id], options, {}),
      deliveries: (id, options) => hook('deliveries', [id], options),
      delivery: (id, eventId, options) => hook('delivery', [id, eventId], options),
      redeliver: (id, eventId, options) => hook('redeliver', [id, eventId], options, {}),
      settings: (options) => hook('settings', [], options),
      updateSettings: (settings, options) => hook('updateSettings', [], options, settings),
    };
    const send = <T>(r: { method: string; path: string }, ids: string[] = [], body?: object) => {
      let i = 0;
      const url = new URL(r.path.replace(/\{\w+\}/g, () => encodeURIComponent(ids[i++] ?? '')).replace(/^\/+/, ''), this.base);
      return this.request<AccountResult<T>>(r.method, url, body);
    };
    this.session = {
      me: () => send(accountRoute('me', 'GET', '/v1/account/me')),
      signIn: (email, password) => send(accountRoute('signIn', 'POST', '/v1/account/sign-in'), [], { email, password }),
      signOut: () => send(accountRoute('signOut', 'POST', '/v1/account/sign-out'), [], {}),
      setPassword: (token, password) => send(accountRoute('setPassword', 'POST', '/v1/account/password'), [], { token, password }),
      changePassword: (currentPassword, password) => send(accountRoute('changePassword', 'POST', '/v1/account/me/password'), [], { currentPassword, password }),
      keys: () => send(accountRoute('listKeys', 'GET', '/v1/account/keys')),
      createKey: (name) => send(accountRoute('createKey', 'POST', '/v1/account/keys'), [], { name }),
      renameKey: (keyId, name) => send(accountRoute('renameKey', 'PATCH', '/v1/account/keys/{keyId}'), [keyId], { name }),
      revokeKey: (keyId) => send(accountRoute('revokeKey', 'DELETE', '/v1/account/keys/{keyId}'), [keyId]),
      members: () => send(accountRoute('listMembers', 'GET', '/v1/account/members')),
      removeMember: (memberId) => send(accountRoute('removeMember', 'DELETE', '/v1/account/members/{memberId}'), [memberId]),
      sessions: (memberId) => send(accountRoute('listSessions', 'GET', '/v1/account/members/{memberId}/sessions'), [memberId]),
      endSessions: (memberId) => send(accountRoute('endSessions', 'DELETE', '/v1/account/members/{memberId}/sessions'), [memberId]),
      endSession: (memberId, sessionId) => send(accountRoute('endSession', 'DELETE', '/v1/account/members/{memberId}/sessions/{sessionId}'), [memberId, sessionId]),
    };
  }

  /** GET /v1/status: each operation's state, figures of the last 15 minutes and 24 hours, and last canary (free, public). */
  status(options: Pick<CallOptions, 'signal'> = {}): Promise<StatusDocument> {
    return this.call<StatusDocument>('/v1/status', {}, { signal: options.signal });
  }

  /** One request, retried on 429/503 as configured. */
  async call<R = unknown>(path: string, params: Record<string, Value | undefined>, opts: CallOptions & { noCache?: boolean } = {}): Promise<R> {
    const url = new URL(path.replace(/^\/+/, ''), this.base);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, String(v));
    // The account reads take no cache_max_age (they would refuse it as an unknown parameter).
    const cacheMaxAge = opts.noCache ? undefined : (opts.cacheMaxAge ?? this.options.cacheMaxAge);
    if (cacheMaxAge) url.searchParams.set('cache_max_age', cacheMaxAge);
    return this.request<R>('GET', url, undefined, opts.signal);
  }

  /**
   * One request of any method (a JSON body when given), retried on 429 and 503 as configured; a
   * POST only on 429 (refused before it ran): a 503 may come after a monitor was created.
   */
  private async request<R>(method: string, url: URL, json: object | undefined, signal?: AbortSignal, extraHeaders: Record<string, string> = {}): Promise<R> {
    const key = this.options.apiKey ?? '';
    const headers: Record<string, string> = { ...extraHeaders, ...(this.options.session ? {} : this.options.bearer ? { authorization: `Bearer ${key}` } : { 'x-api-key': key }) };
    if (json !== undefined) headers['content-type'] = 'application/json';
    const init = { method, headers, body: json === undefined ? undefined : JSON.stringify(json), signal };
    const retry = this.options.retry === false ? { attempts: 1, maxDelayMs: 0 } : { attempts: 3, maxDelayMs: 30_000, ...this.options.retry };
    for (let attempt = 1; ; attempt++) {
      await this.options.beforeRequest?.(url, signal);
      const res = await this.send(url, init);
      this.options.onResponse?.(res, url);
      const body = (await res.json().catch(() => null)) as { error?: { code: ErrorCode; message: string; requestId: string; details?: ErrorDetail[] } } | null;
      if (res.ok) return body as R;
      const retryAfter = Number(res.headers.get('retry-after')) || undefined;
      const e = body?.error;
      const error = new ApiClientError(res.status, e?.code ?? 'SERVICE_UNAVAILABLE', e?.message ?? `HTTP ${res.status}`, e?.requestId ?? res.headers.get('x-request-id') ?? '', e?.details, retryAfter);
      const waitMs = (retryAfter ?? 1) * 1000;
      const retried = res.status === 429 || (res.status === 503 && method !== 'POST');
      if (!retried || attempt >= retry.attempts || waitMs > retry.maxDelayMs) throw error;
      await sleep(waitMs, signal);
    }
  }

  /**
   * One request; a redirect is followed (with the key) only when it stays on the base's origin,
   * and only for a GET (another method's body is not sent again).
   */
  private async send(url: URL, init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal }): Promise<Response> {
    let target = url;
    for (let hops = 0; ; hops++) {
      const res = await this.fetchImpl(target, { ...init, redirect: 'manual' });
      // A browser hides a redirect from `manual` (an opaque answer): it cannot be checked, so it is not followed.
      if (res.type === 'opaqueredirect') throw new Error(`The API answered ${target.pathname} with a redirect, which is not followed`);
      const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
      if (!location) return res;
      await res.body?.cancel();
      if (init.method !== 'GET') throw new Error(`The API answered ${init.method} ${target.pathname} with a redirect, which is not followed`);
      const next = new URL(location, target);
      if (next.origin !== this.base.origin) throw new Error(`The API redirected to another origin (${next.origin}); the API key is not sent there`);
      if (hops >= MAX_REDIRECTS) throw new Error(`More than ${MAX_REDIRECTS} redirects`);
      target = next;
    }
  }

  private async *paginate(path: string, cursorName: string, params: Record<string, Value>, opts?: CallOptions) {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.call<{ data: { cursor?: string | null } }>(path, { ...params, [cursorName]: cursor }, opts);
      yield page as never;
      const next = page.data.cursor;
      if (next === null || next === undefined || next === cursor) return;
      cursor = next;
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason);
    });
  });
}
