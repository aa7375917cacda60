/** Moved to shared/api/account-routes.ts (below every entry point); kept for the importers outside shared/ (infra/, dev/gateway.ts). */
export * from '../api/account-routes';
