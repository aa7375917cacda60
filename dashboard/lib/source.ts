/**
 * Where an answer came from: the team's own request (with a key), a monitor's poll (the history
 * item and the ledger entry carry `source: 'monitor'` and its `monitorId`) or a bulk job's page
 * (`source: 'job'` and its `jobId`). Requests and Credits show it and filter by it.
 */
import { PAGE_ROOT } from './api';
import { html } from './html';

export type Source = 'request' | 'monitor' | 'job';
export const SOURCE_CHOICES: [string, string][] = [
  ['', 'Every source'],
  ['request', 'Your requests (API key)'],
  ['monitor', 'Monitor polls'],
  ['job', 'Bulk jobs'],
];
export const sourceOf = (x: { source?: 'monitor' | 'job' }): Source => x.source ?? 'request';

/** The source as a cell shows it: "Your request", "Monitor" or "Job" with its id (a link to its page). */
export function SourceLabel({ source, monitorId, jobId }: { source?: 'monitor' | 'job'; monitorId?: string; jobId?: string }) {
  if (source === 'job') return html`<span class="source">Job <a href=${`${PAGE_ROOT}/jobs`}><code>${jobId}</code></a></span>`;
  if (source !== 'monitor') return 'Your request';
  return html`<span class="source">Monitor <a href=${`${PAGE_ROOT}/monitors`}><code>${monitorId}</code></a></span>`;
}
