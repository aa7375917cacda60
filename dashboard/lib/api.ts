import { ApiClientError, SocialDataClient, type ErrorDetail } from '../../client/index';

/**
 * The one client of the API the pages call (client/index.ts, typed): in session mode, so the
 * browser's HttpOnly session cookie is the credential and no key is sent; no retries (a person is
 * waiting and can press again).
 */
/** Where the service is mounted: the path before /dashboard (an API Gateway stage such as /prod). */
export const BASE = location.pathname.slice(0, Math.max(0, location.pathname.indexOf('/dashboard')));
export const PAGE_ROOT = `${BASE}/dashboard`;

export const api = new SocialDataClient({ baseUrl: `${location.origin}${BASE}`, session: true, retry: false });

export type Detail = ErrorDetail;

const duration = (seconds: number) => (seconds < 90 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`);

/** What a person reads of a failure: a throttle's wait, a field's problem, or the answer's message. */
export function messageOf(err: unknown): string {
  if (err instanceof ApiClientError) {
    if (err.status === 429 && err.retryAfter) return `Too many attempts. Try again in ${duration(err.retryAfter)}.`;
    return err.details?.[0]?.message ?? err.message;
  }
  if (err instanceof TypeError) return 'The service could not be reached; check the connection and try again';
  return err instanceof Error ? err.message : String(err);
}

export const isSignedOut = (err: unknown) => err instanceof ApiClientError && err.status === 401;
export const detailsOf = (err: unknown): Detail[] => (err instanceof ApiClientError && err.status === 422 ? (err.details ?? []) : []);
