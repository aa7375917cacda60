/** Registered by test/infra/stack.test.ts (one module registry for the stack's template tests). */
import { nestedStackIds, nestedTemplate, stackTemplate } from '../support/synth';

/**
 * The resource budget of each stack: the root stack and each nested stack (infra/jobs.ts: the jobs
 * engine). CloudFormation refuses a stack of more than 500 resources, nested or not; the budget keeps
 * a hundred of them for what comes next and for what a deployment's context adds, so that a part that
 * grows too much fails here, with the count, and not at `cdk deploy`. Over the budget: trim the part,
 * or move it into a nested stack of its own (docs/deployment.md).
 */
export const RESOURCE_BUDGET = 400;

/** The default context, and the one with the most resources (a customer-managed key, the alarm e-mail). */
test.each([
  ['default context', {}],
  ['with a KMS key', { kmsKey: true }],
  ['with an alarm e-mail and canary inputs', { alarmEmail: 'ops@example.com', canaryInputs: { 'livestream-clip': { url: 'https://example.test/c' } } }],
])(`at most ${RESOURCE_BUDGET} resources in each template, the root's and each nested stack's (%s)`, (_name, context) => {
  const ids = nestedStackIds(context);
  // The jobs engine's (a nested stack that vanished would make the check below vacuous).
  expect(ids).toEqual(['JobsEngine']);
  const summaries = [['root', stackTemplate(context)] as const, ...ids.map((id) => [id, nestedTemplate(id, context)] as const)].map(([stack, template]) => {
    const resources = Object.values(template.toJSON().Resources as Record<string, { Type: string }>);
    const byType = new Map<string, number>();
    for (const r of resources) byType.set(r.Type, (byType.get(r.Type) ?? 0) + 1);
    const largest = [...byType].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([type, n]) => `${n} ${type}`).join(', ');
    return { summary: `${stack}: ${resources.length} resources (budget ${RESOURCE_BUDGET}; largest: ${largest})`, withinBudget: resources.length <= RESOURCE_BUDGET };
  });
  console.info(summaries.map((s) => s.summary).join('\n'));
  expect(summaries).toEqual(summaries.map(({ summary }) => ({ summary, withinBudget: true })));
});
