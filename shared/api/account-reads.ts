import { queryAll } from '../db/client';
import { TEAM_INDEX, teamPk } from '../db/tables';
import { config } from '../runtime/config';
import { getTeam } from '../accounting/teams';
import { recentCharges } from '../accounting/ledger';
import { ApiError, type ValidationDetail } from '../http/errors';
import { boundedDetails } from '../http/validation';
import { HISTORY_PAGE, type HistoryPage, type HistoryRecord, type RequestsQuery, requestHistory } from '../accounting/request-history';
import { routedOperations } from '../operations';
import { usage, type UsageReport } from '../accounting/usage';

/**
 * What a team may read about its own account: the balance with the latest charges, the daily
 * usage, and the request history of the last 7 days. The account API (a dashboard session or an
 * API key) and the MCP account tools (API key) answer these, for the team the credential belongs
 * to. None costs a credit.
 */
export const RECENT_CHARGES = 50;

export interface CreditsReport {
  balance: number;
  /** The latest RECENT_CHARGES charges, newest first; a monitor's poll says so (`source`, `monitorId`). */
  charges: { time: string; operation: string; requestId: string; credits: number; source?: 'monitor' | 'job'; monitorId?: string; jobId?: string }[];
}

export async function creditsReport(teamId: string): Promise<CreditsReport> {
  const [team, charges] = await Promise.all([getTeam(teamId), recentCharges(teamId, RECENT_CHARGES)]);
  return {
    balance: team?.credits ?? 0,
    charges: charges.map(({ time, operation, requestId, credits, source, monitorId, jobId }) => ({ time, operation, requestId, credits, ...(source === 'job' ? { source, jobId } : source ? { source, monitorId } : {}) })),
  };
}

export const USAGE_DAYS = { default: 30, max: 90 } as const;

const invalidQuery = (details: ValidationDetail[]) => new ApiError('VALIDATION_ERROR', 'Invalid query parameters', { details });

/** `days` as a caller sends it (absent: 30); anything but a whole number from 1 to 90 is a 422. */
export async function usageReport(teamId: string, rawDays: string | undefined): Promise<UsageReport> {
  const raw = rawDays ?? String(USAGE_DAYS.default);
  const days = Number(raw);
  if (!/^\d+$/.test(raw) || days < 1 || days > USAGE_DAYS.max) {
    throw invalidQuery([{ path: 'days', message: `A whole number from 1 to ${USAGE_DAYS.max}` }]);
  }
  return usage(teamId, days);
}

/** The query parameters GET /v1/account/requests (and the account-requests tool) take. */
export const REQUESTS_PARAMS = {
  operation: 'An operation id (e.g. livestream-clip): only its requests',
  status: 'An HTTP status (200, 404, 503, …), or `error` for every error answer',
  source: "Whose requests: `request` (made with an API key), `monitor` (a monitor's polls) or `job` (a bulk job's pages)",
  limit: `Requests per page: a whole number from 1 to ${HISTORY_PAGE.max} (default ${HISTORY_PAGE.default})`,
  cursor: 'The cursor of the previous page, for the next (older) one',
} as const;

/**
 * The team's requests of the last 7 days, newest first. Unknown, empty or malformed parameters are
 * a 422 (a typo in a filter must not read as "no such requests"); a cursor that is not this query's
 * is a 400, as for every cursor.
 */
export interface RequestsReport extends Omit<HistoryPage, 'requests'> {
  /** Newest first; `keyName` is the key's name now (null for a key the team no longer has). */
  requests: (HistoryRecord & { keyName: string | null })[];
}

export async function requestsReport(teamId: string, query: Record<string, string | undefined> | null | undefined): Promise<RequestsReport> {
  const details: ValidationDetail[] = [];
  const q: RequestsQuery = { limit: HISTORY_PAGE.default };
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    if (!Object.hasOwn(REQUESTS_PARAMS, name)) {
      details.push({ path: name, message: `Unknown parameter; this route takes ${Object.keys(REQUESTS_PARAMS).join(', ')}` });
    } else if (name === 'operation') {
      if (routedOperations().some((o) => o.id === value)) q.operation = value;
      else details.push({ path: name, message: 'Not an operation id of this API' });
    } else if (name === 'status') {
      if (value === 'error') q.status = 'error';
      else if (/^[1-5]\d\d$/.test(value)) q.status = Number(value);
      else details.push({ path: name, message: REQUESTS_PARAMS.status });
    } else if (name === 'source') {
      if (value === 'request' || value === 'monitor' || value === 'job') q.source = value;
      else details.push({ path: name, message: REQUESTS_PARAMS.source });
    } else if (name === 'limit') {
      const n = Number(value);
      if (/^\d+$/.test(value) && n >= 1 && n <= HISTORY_PAGE.max) q.limit = n;
      else details.push({ path: name, message: REQUESTS_PARAMS.limit });
    } else if (value) q.cursor = value;
    else details.push({ path: name, message: 'An empty cursor; leave it out for the first page' });
  }
  if (details.length) throw invalidQuery(boundedDetails(details));
  const [page, names] = await Promise.all([requestHistory(teamId, q), keyNames(teamId)]);
  return { ...page, requests: page.requests.map((r) => ({ ...r, keyName: r.keyId ? (names.get(r.keyId) ?? null) : null })) };
}

/**
 * The only attributes of the byTeam index the history's key names are read with, and the only ones
 * the MCP function may read there (infra/stack.ts: dynamodb:Attributes, Select SPECIFIC_ATTRIBUTES):
 * the index also holds the team's members (e-mails, password hashes) and sessions, which no tool
 * needs. The key condition names the partition key only (the sort key would spell members' e-mails).
 */
export const KEY_NAME_ATTRIBUTES = [TEAM_INDEX.partitionKey, 'keyId', 'name'] as const;

/** The names of the team's keys (revoked ones included) by key id. */
export async function keyNames(teamId: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const items = await queryAll({
    TableName: config.accountsTable,
    IndexName: TEAM_INDEX.name,
    KeyConditionExpression: '#team = :team',
    ProjectionExpression: '#id, #name',
    Select: 'SPECIFIC_ATTRIBUTES',
    ExpressionAttributeNames: { '#team': TEAM_INDEX.partitionKey, '#id': 'keyId', '#name': 'name' },
    ExpressionAttributeValues: { ':team': teamPk(teamId) },
  });
  // Members and sessions share the partition: they have neither attribute and come back empty.
  for (const item of items) if (typeof item.keyId === 'string' && typeof item.name === 'string') names.set(item.keyId, item.name);
  return names;
}
