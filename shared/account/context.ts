import type { ContextFor, Reply, RouteContext } from '../api/router';

/**
 * What the account API's handlers get (shared/api/router.ts builds it) and answer: a public route's
 * context (sign-in and the like), or a signed-in member's (`session`).
 */
export type Ctx = RouteContext;
export type SessionCtx = ContextFor<'session'>;
export type { Reply };

/** Kept here for infra/stack.ts (the gateway's own 401 of a session route says the same). */
export { NOT_SIGNED_IN } from '../api/caller';
