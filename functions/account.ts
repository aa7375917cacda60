import { accountHandler } from '../shared/account/api';

// Every /v1/account/* route (shared/account/routes.ts): the dashboard's JSON API, authorised by the session cookie.
export const handler = accountHandler;
