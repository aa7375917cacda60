/** Registered by test/infra/stack.test.ts (one module registry for the stack's template tests). */
import { stackTemplate } from '../support/synth';

/**
 * The stack's resource budget. CloudFormation refuses a stack of more than 500 resources; the budget
 * keeps a hundred of them for what comes next (events, bulk jobs) and for what a deployment's context
 * adds, so that a part that grows too much fails here, with the count, and not at `cdk deploy`.
 * Over the budget: trim the part, or move it into a nested stack of its own (docs/deployment.md).
 */
export const RESOURCE_BUDGET = 400;

/** The default context, and the one with the most resources (a customer-managed key, the alarm e-mail). */
test.each([
  ['default context', {}],
  ['with a KMS key', { kmsKey: true }],
  ['with an alarm e-mail and canary inputs', { alarmEmail: 'ops@example.com', canaryInputs: { 'livestream-clip': { url: 'https://example.test/c' } } }],
])(`at most ${RESOURCE_BUDGET} resources in the template (%s)`, (_name, context) => {
  const resources = Object.values(stackTemplate(context).toJSON().Resources as Record<string, { Type: string }>);
  const byType = new Map<string, number>();
  for (const r of resources) byType.set(r.Type, (byType.get(r.Type) ?? 0) + 1);
  const largest = [...byType].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([type, n]) => `${n} ${type}`).join(', ');
  const summary = `${resources.length} resources (budget ${RESOURCE_BUDGET}; largest: ${largest})`;
  console.info(summary);
  expect({ summary, withinBudget: resources.length <= RESOURCE_BUDGET }).toEqual({ summary, withinBudget: true });
});
