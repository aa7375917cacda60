import { accountHandler } from '../shared/account/api';

// Every /v1/account/* route (shared/api/account-routes.ts): the dashboard's JSON API, served by the one router (shared/api/router.ts).
export const handler = accountHandler;
