/** Moved to shared/auth/members.ts (below every entry point); kept for the importers outside shared/ (infra/, scripts/). */
export * from '../auth/members';
