/** Moved to shared/api/monitor-routes.ts (below every entry point); kept for the importers outside shared/ (infra/, dev/gateway.ts). */
export * from '../api/monitor-routes';
