import { statusHandler } from '../shared/status/page';

// GET /v1/status, without a key: each operation's state, figures and last canary.
export const handler = statusHandler();
