/** Moved to shared/auth/passwords.ts (below every entry point); kept for the importers outside shared/ (infra/, scripts/). */
export * from '../auth/passwords';
