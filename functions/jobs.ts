/** The bulk jobs API (shared/jobs/api.ts): one function for every /v1/jobs route. */
export { jobsHandler as handler } from '../shared/jobs/api';
