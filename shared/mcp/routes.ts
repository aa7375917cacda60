/** Moved to shared/api/agent-routes.ts (below every entry point); kept for the importers outside shared/ (infra/, dev/, mcp/, scripts/). */
export * from '../api/agent-routes';
