/** The monitors API (shared/monitors/api.ts): one function for every /v1/monitors route. */
export { monitorsHandler as handler } from '../shared/monitors/api';
