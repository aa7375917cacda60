/** Monitors on AWS (shared/monitors/aws.ts, infra/monitors.ts). */
export { pollWorker as handler } from '../../shared/monitors/aws';
