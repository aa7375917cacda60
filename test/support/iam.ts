/**
 * What IAM sees of a DynamoDB write, for tests that hold the code's writes against the stack's
 * policies (test/unit/authorizer-iam.test.ts, test/infra/stack.test.ts).
 */

/** IAM's StringLike: case-sensitive, `*` any run of characters (none too), `?` one character. */
export function iamLike(pattern: string, value: string): boolean {
  const re = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${re}$`, 's').test(value);
}

/** Words of an expression that are not attribute names. */
const KEYWORDS = new Set(['SET', 'REMOVE', 'ADD', 'DELETE', 'AND', 'OR', 'NOT', 'BETWEEN', 'IN']);

export interface WriteInput {
  Key: Record<string, unknown>;
  UpdateExpression?: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ReturnValues?: string;
  ReturnValuesOnConditionCheckFailure?: string;
}

/**
 * Every attribute name an UpdateItem (or a transaction's Update or ConditionCheck) names, as IAM's
 * dynamodb:Attributes counts them: the key's, and the top-level names of its update and condition
 * expressions, by placeholder (`#n`) or bare. Every ExpressionAttributeNames value is counted too,
 * whether or not an expression uses it, and every segment of a document path (`a.b`): stricter than
 * IAM, never laxer. A placeholder without a name throws.
 */
export function attributesNamed(input: WriteInput): string[] {
  const names = input.ExpressionAttributeNames ?? {};
  const out = new Set<string>([...Object.keys(input.Key), ...Object.values(names)]);
  for (const expression of [input.UpdateExpression, input.ConditionExpression]) {
    if (!expression) continue;
    // Placeholders (#n, :v), function calls (name followed by an opening parenthesis) and bare words.
    for (const [token] of expression.matchAll(/[#:][A-Za-z0-9_]+|[A-Za-z_][A-Za-z0-9_]*(?:\s*\()?/g)) {
      if (token.startsWith(':') || token.endsWith('(')) continue;
      if (token.startsWith('#')) {
        const name = names[token];
        if (name === undefined) throw new Error(`${token} has no ExpressionAttributeNames entry`);
        out.add(name);
      } else if (!KEYWORDS.has(token.toUpperCase())) {
        out.add(token);
      }
    }
  }
  return [...out];
}

/** An IAM policy statement of a synthesized template. */
export type Statement = { Effect?: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, string | string[]>> };
/** A resource of a synthesized template. */
export type Resource = { Type: string; Properties: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Every statement of the role of the one Lambda function whose description contains `description`. */
export function roleStatements(resources: Record<string, Resource>, description: string): Statement[] {
  const fns = Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function' && String(r.Properties.Description).includes(description));
  if (fns.length !== 1) throw new Error(`${fns.length} functions described as "${description}"`);
  const roleId = fns[0]!.Properties.Role['Fn::GetAtt'][0];
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((x: { Ref: string }) => x.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
}
