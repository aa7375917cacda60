import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** CloudWatch metrics in embedded metric format; POWERTOOLS_METRICS_DISABLED=true turns them off locally. */
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || 'SocialDataApi',
  serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'social-data-api',
});

export { MetricUnit };

/** One answer of an operation: `outcome` is `live`, `cache_hit` or the error code (shared/status/outcomes.ts calls it). */
export function emitOutcomeMetric(operation: string, outcome: string, upstreamCalls: number, ms: number) {
  const m = metrics.singleMetric();
  m.addDimension('operation', operation);
  m.addDimension('outcome', outcome);
  m.addMetric('requests', MetricUnit.Count, 1);
  m.addMetric('upstreamCalls', MetricUnit.Count, upstreamCalls);
  m.addMetric('latency', MetricUnit.Milliseconds, ms);
  // The same answer counted by operation alone: the denominator of the alarms' error shares.
  const all = metrics.singleMetric();
  all.addDimension('operation', operation);
  all.addMetric('answers', MetricUnit.Count, 1);
}
