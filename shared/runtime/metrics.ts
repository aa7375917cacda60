import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/**
 * CloudWatch metrics in embedded metric format (Powertools Metrics): one EMF record per answer,
 * flushed once, with every figure of that answer in it. POWERTOOLS_METRICS_DISABLED=true turns
 * them off locally. A record of its own per answer (not the module's shared instance) because the
 * MCP function answers several tool calls in one invocation, concurrently.
 */
/** The CloudWatch namespace of every metric (the stack's alarms and dashboards name it: infra/ may import it from here). */
export const METRICS_NAMESPACE = 'SocialDataApi';

const options = () => ({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || METRICS_NAMESPACE,
  serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'social-data-api',
});

export { MetricUnit };
type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];

/**
 * Publishes one record: `values` under each of `dimensionSets` (Powertools adds `service` to each).
 * Never throws: a metric never fails a request.
 */
export function publishMetrics(dimensionSets: readonly Record<string, string>[], values: readonly (readonly [name: string, unit: Unit, value: number])[]): void {
  try {
    const m = new Metrics(options());
    for (const dims of dimensionSets) m.addDimensions(dims);
    for (const [name, unit, value] of values) m.addMetric(name, unit, value);
    m.publishStoredMetrics();
  } catch {
    /* a metric is never the reason a request fails */
  }
}

/**
 * One answer of an operation: `outcome` is `live`, `cache_hit` or the error code. By operation and
 * outcome (the dashboards), and by operation alone (`answers`: the alarms' denominator), in one
 * record; `extra` counts what went wrong beside the answer (a failed record, a failed refund).
 */
export function answerMetrics(operation: string, outcome: string, upstreamCalls: number, ms: number, extra: readonly string[] = []): void {
  publishMetrics(
    [{ operation, outcome }, { operation }],
    [
      ['requests', MetricUnit.Count, 1],
      ['answers', MetricUnit.Count, 1],
      ['upstreamCalls', MetricUnit.Count, upstreamCalls],
      ['latency', MetricUnit.Milliseconds, ms],
      ...extra.map((name) => [name, MetricUnit.Count, 1] as const),
    ],
  );
}
