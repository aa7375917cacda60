/**
 * A monitor's interval limits, apart from the monitors API so that the dashboard function can tell
 * the page the floor this deployment applies without bundling the API (shared/public/dashboard-assets.ts).
 */
export const MAX_INTERVAL_SECONDS = 86_400;
/** The floor of a monitor's interval, but where MONITOR_MIN_INTERVAL_SECONDS lowers it (local runs and tests). */
export const MIN_INTERVAL_SECONDS = 60;
export const minIntervalSeconds = () => Math.max(1, Number(process.env.MONITOR_MIN_INTERVAL_SECONDS) || MIN_INTERVAL_SECONDS);
