/** Monitors on AWS (shared/monitors/aws.ts, infra/monitors.ts). */
export { deliveryWorker as handler } from '../../shared/monitors/aws';
