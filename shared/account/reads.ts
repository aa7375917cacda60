import { getTeam, recentCharges } from '../credits';
import { ApiError } from '../errors';
import { usage, type UsageReport } from '../usage';

/**
 * What a team may read about its own account: the balance with the latest charges, and the daily
 * usage. The dashboard's account API (session cookie) and the MCP account tools (API key) both
 * answer these, for the team their credential belongs to.
 */
export const RECENT_CHARGES = 50;

export interface CreditsReport {
  balance: number;
  /** The latest RECENT_CHARGES charges, newest first. */
  charges: { time: string; operation: string; requestId: string; credits: number }[];
}

export async function creditsReport(teamId: string): Promise<CreditsReport> {
  const [team, charges] = await Promise.all([getTeam(teamId), recentCharges(teamId, RECENT_CHARGES)]);
  return {
    balance: team?.credits ?? 0,
    charges: charges.map(({ time, operation, requestId, credits }) => ({ time, operation, requestId, credits })),
  };
}

export const USAGE_DAYS = { default: 30, max: 90 } as const;

/** `days` as a caller sends it (absent: 30); anything but a whole number from 1 to 90 is a 422. */
export async function usageReport(teamId: string, rawDays: string | undefined): Promise<UsageReport> {
  const raw = rawDays ?? String(USAGE_DAYS.default);
  const days = Number(raw);
  if (!/^\d+$/.test(raw) || days < 1 || days > USAGE_DAYS.max) {
    throw new ApiError('VALIDATION_ERROR', 'Invalid query parameters', { details: [{ path: 'days', message: `A whole number from 1 to ${USAGE_DAYS.max}` }] });
  }
  return usage(teamId, days);
}
