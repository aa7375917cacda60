/** Moved to shared/api/monitor-kinds.ts (below every entry point); kept for the importers outside shared/ (infra/, cli/, client/). */
export * from '../api/monitor-kinds';
