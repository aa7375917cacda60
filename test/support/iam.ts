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

/** The table names of this process (config) and the ARNs the template gives them, for `dynamoCallAllowed`. */
export type TableArns = Record<string, unknown>;

/** IAM's condition operators as the stack uses them on DynamoDB; another one throws (not modelled). */
export function conditionHolds(operator: string, values: string[] | undefined, patterns: string[]): boolean {
  switch (operator) {
    case 'ForAllValues:StringLike':
      return (values ?? []).every((v) => patterns.some((p) => iamLike(p, v)));
    case 'ForAllValues:StringEquals':
      return (values ?? []).every((v) => patterns.includes(v));
    case 'ForAnyValue:StringEquals':
      return (values ?? []).some((v) => patterns.includes(v));
    case 'StringEquals':
      return values !== undefined && values.every((v) => patterns.includes(v));
    case 'StringEqualsIfExists':
      return values === undefined || values.every((v) => patterns.includes(v));
    case 'Null':
      return patterns.every((p) => (p === 'true') === (values === undefined));
    default:
      throw new Error(`condition operator ${operator}: not modelled`);
  }
}

/** A DynamoDB call of the document client (test/support/db-sends.ts) as IAM sees it: one request per table it names. */
export function iamRequests(call: { name: string; input: Record<string, any> }, arns: TableArns): { action: string; resource: unknown; context: Record<string, string[] | undefined> }[] { // eslint-disable-line @typescript-eslint/no-explicit-any
  const base = call.name.replace(/Command$/, '');
  const action = `dynamodb:${({ Get: 'GetItem', Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', BatchGet: 'BatchGetItem', BatchWrite: 'BatchWriteItem', TransactWrite: 'TransactWriteItems', TransactGet: 'TransactGetItems' } as Record<string, string>)[base] ?? base}`;
  const resourceOf = (table: string, index?: string) => {
    const arn = arns[table];
    if (arn === undefined) throw new Error(`table ${table} has no ARN here`);
    return index ? { 'Fn::Join': ['', [arn, `/index/${index}`]] } : arn;
  };
  const { input } = call;
  if (call.name === 'BatchGetCommand') {
    return Object.entries(input.RequestItems as Record<string, { Keys: { pk: string }[] }>).map(([table, { Keys }]) => ({ action, resource: resourceOf(table), context: { 'dynamodb:LeadingKeys': Keys.map((k) => String(k.pk)) } }));
  }
  if (call.name === 'QueryCommand') {
    const partition = /^\s*(#?\w+)\s*=\s*(:\w+)/.exec(input.KeyConditionExpression);
    if (!partition) throw new Error(`no partition key equality in ${input.KeyConditionExpression}`);
    return [{ action, resource: resourceOf(input.TableName, input.IndexName), context: { 'dynamodb:LeadingKeys': [String(input.ExpressionAttributeValues?.[partition[2]!])], 'dynamodb:Select': input.Select === undefined ? undefined : [input.Select] } }];
  }
  const key = (input.Key ?? { pk: input.Item?.pk }) as { pk: string };
  const context: Record<string, string[] | undefined> = { 'dynamodb:LeadingKeys': [String(key.pk)], 'dynamodb:ReturnValues': input.ReturnValues === undefined ? undefined : [input.ReturnValues] };
  if (call.name === 'UpdateCommand') context['dynamodb:Attributes'] = attributesNamed(input as WriteInput);
  if (call.name === 'PutCommand') context['dynamodb:Attributes'] = Object.keys(input.Item);
  return [{ action, resource: resourceOf(input.TableName), context }];
}

/** Whether the statements allow every request of a call: an Allow whose action, resource and conditions all match, and no such Deny. */
export function dynamoCallAllowed(statements: Statement[], call: { name: string; input: Record<string, any> }, arns: TableArns): boolean { // eslint-disable-line @typescript-eslint/no-explicit-any
  return iamRequests(call, arns).every(({ action, resource, context }) => {
    const matching = statements.filter(
      (s) =>
        [s.Action].flat().includes(action) &&
        [s.Resource].flat().some((r) => JSON.stringify(r) === JSON.stringify(resource)) &&
        Object.entries(s.Condition ?? {}).every(([op, keys]) => Object.entries(keys).every(([k, patterns]) => conditionHolds(op, context[k], [patterns].flat()))),
    );
    return matching.some((s) => s.Effect !== 'Deny') && !matching.some((s) => s.Effect === 'Deny');
  });
}
