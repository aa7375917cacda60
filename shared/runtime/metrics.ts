import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** CloudWatch metrics in embedded metric format; POWERTOOLS_METRICS_DISABLED=true turns them off locally. */
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || 'SocialDataApi',
  serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'social-data-api',
});

export { MetricUnit };

/**
 * Metrics with their dimensions (Powertools adds `service`). One single metric each: a single
 * metric is written, and its dimensions cleared, by its first addMetric, so a second value added to
 * it would go out without them.
 */
export function emitMetrics(dimensions: Record<string, string>, values: readonly (readonly [name: string, unit: (typeof MetricUnit)[keyof typeof MetricUnit], value: number])[]): void {
  for (const [name, unit, value] of values) {
    const m = metrics.singleMetric();
    for (const [key, dim] of Object.entries(dimensions)) m.addDimension(key, dim);
    m.addMetric(name, unit, value);
  }
}

/** One answer of an operation: `outcome` is `live`, `cache_hit` or the error code (shared/status/outcomes.ts calls it). */
export function emitOutcomeMetric(operation: string, outcome: string, upstreamCalls: number, ms: number) {
  emitMetrics({ operation, outcome }, [
    ['requests', MetricUnit.Count, 1],
    ['upstreamCalls', MetricUnit.Count, upstreamCalls],
    ['latency', MetricUnit.Milliseconds, ms],
  ]);
  // The same answer counted by operation alone: the denominator of the alarms' error shares.
  emitMetrics({ operation }, [['answers', MetricUnit.Count, 1]]);
}
