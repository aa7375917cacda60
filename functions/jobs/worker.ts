/** Bulk jobs on AWS (shared/jobs/aws.ts, infra/jobs.ts): the input worker of every platform's queue. */
export { inputWorker as handler } from '../../shared/jobs/aws';
