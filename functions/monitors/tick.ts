/** Monitors on AWS (shared/monitors/aws.ts, infra/monitors.ts). */
export { tickHandler as handler } from '../../shared/monitors/aws';
