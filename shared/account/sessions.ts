/** Moved to shared/auth/sessions.ts (below every entry point); kept for the importers outside shared/ (infra/, scripts/). */
export * from '../auth/sessions';
