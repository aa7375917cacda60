import { accountHandler } from '../shared/account/api';
import { setMonitorOwners } from '../shared/account/context';
import { monitorOwners } from '../shared/monitors/owner';

// Every /v1/account/* route (shared/api/account-routes.ts): the dashboard's JSON API, served by the one router (shared/api/router.ts).
// A revocation or a removal pauses the monitors of the key or member in its own transaction (shared/monitors/owner.ts).
setMonitorOwners(monitorOwners);
export const handler = accountHandler;
