/** Moved to shared/api/account-reads.ts (below every entry point); kept for the importers outside shared/ (infra/, dashboard/, client/). */
export * from '../api/account-reads';
