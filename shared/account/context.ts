import type { ContextFor, Reply, RouteContext } from '../api/router';
import { type MonitorOwners, changeAlone } from '../auth/members';

/**
 * What a revocation or a removal does to the monitors of the key or member (the eager pause): set
 * once by the entry (functions/account.ts) to shared/monitors/owner.ts monitorOwners, which this
 * entry point may not import itself. Unset (a test of the handlers alone), each change is written
 * alone and the poll-time owner check pauses the monitors.
 */
let owners: MonitorOwners | undefined;
export function setMonitorOwners(o: MonitorOwners): void {
  owners = o;
}
export function monitorOwnersOr(): MonitorOwners {
  return owners ?? { keyRevoked: () => changeAlone, memberRemoved: () => changeAlone, memberTransferred: () => changeAlone };
}

/**
 * What the account API's handlers get (shared/api/router.ts builds it) and answer: a public route's
 * context (sign-in and the like), or a signed-in member's (`session`).
 */
export type Ctx = RouteContext;
export type SessionCtx = ContextFor<'session'>;
export type { Reply };

/** Kept here for infra/stack.ts (the gateway's own 401 of a session route says the same). */
export { NOT_SIGNED_IN } from '../api/caller';
