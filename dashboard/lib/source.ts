/**
 * Where an answer came from: the team's own request (with a key), or a monitor's poll (the history
 * item and the ledger entry carry `source: 'monitor'` and its `monitorId`). Requests and Credits
 * show it and filter by it.
 */
import { PAGE_ROOT } from './api';
import { html } from './html';

export type Source = 'request' | 'monitor';
export const SOURCE_CHOICES: [string, string][] = [
  ['', 'Every source'],
  ['request', 'Your requests (API key)'],
  ['monitor', 'Monitor polls'],
];
export const sourceOf = (x: { source?: 'monitor' }): Source => (x.source === 'monitor' ? 'monitor' : 'request');

/** The source as a cell shows it: "Your request", or "Monitor" with its id (a link to the Monitors page). */
export function SourceLabel({ source, monitorId }: { source?: 'monitor'; monitorId?: string }) {
  if (source !== 'monitor') return 'Your request';
  return html`<span class="source">Monitor <a href=${`${PAGE_ROOT}/monitors`}><code>${monitorId}</code></a></span>`;
}
