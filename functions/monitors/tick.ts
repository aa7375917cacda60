import { tickHandler } from '../../shared/monitors/aws';
import { buildStatus } from '../../shared/status/page';

/**
 * Monitors on AWS (shared/monitors/aws.ts, infra/monitors.ts): every minute, due polls and
 * deliveries to their queues, and the account events' minute checks, which read the public status
 * (shared/status/page.ts).
 */
export const handler = () => tickHandler(buildStatus);
