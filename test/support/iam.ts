/**
 * What IAM sees of a DynamoDB call, and its answer under a role's synthesized statements: the one
 * evaluator of the tests that hold the code's calls against the stack's policies
 * (test/infra/iam/authorizer.test.ts, test/infra/iam/mcp.test.ts, test/infra/iam/monitors.test.ts,
 * test/infra/stack.test.ts).
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

/* eslint-disable @typescript-eslint/no-explicit-any -- SDK inputs are arbitrary records here */
/** A DynamoDB call of the document client (test/support/db-sends.ts): its command's name and input. */
export type Call = { name: string; input: Record<string, any> };

/** One request as IAM evaluates it: its action, table (and index), the items it names, and its condition keys. */
export interface IamRequest {
  action: string;
  table: string;
  index?: string;
  keys: Record<string, unknown>[];
  /** dynamodb:Attributes as this file counts them (stricter than IAM, never laxer). */
  attributes: string[];
  context: Record<string, string[] | undefined>;
}

const ACTION_OF_COMMAND: Record<string, string> = { GetCommand: 'dynamodb:GetItem', PutCommand: 'dynamodb:PutItem', UpdateCommand: 'dynamodb:UpdateItem', DeleteCommand: 'dynamodb:DeleteItem' };
const ACTION_OF_TRANSACTION: Record<string, string> = { Put: 'dynamodb:PutItem', Update: 'dynamodb:UpdateItem', Delete: 'dynamodb:DeleteItem', ConditionCheck: 'dynamodb:ConditionCheckItem' };

/** An item action (or a transaction's): its key's partition, the attributes it names (a Put: its item's), and ReturnValues (NONE unless asked). */
function itemRequest(action: string, input: Record<string, any>): IamRequest {
  const key = (input.Key ?? { pk: input.Item?.pk, sk: input.Item?.sk }) as Record<string, unknown>;
  const attributes = input.Item ? Object.keys(input.Item) : attributesNamed({ ...input, Key: key, ConditionExpression: [input.ConditionExpression, input.ProjectionExpression].filter(Boolean).join(' AND ') || undefined });
  const returnValues = [input.ReturnValues ?? input.ReturnValuesOnConditionCheckFailure ?? 'NONE'];
  return { action, table: input.TableName, keys: [key], attributes, context: { 'dynamodb:LeadingKeys': [String(key.pk)], 'dynamodb:Attributes': attributes, 'dynamodb:ReturnValues': returnValues } };
}

/**
 * The requests of one call as IAM evaluates them: a transaction's items one by one; a BatchGetItem
 * one request per table, whose LeadingKeys are every partition key it asks (IAM evaluates it once,
 * so ForAllValues holds only when every key matches); a Query its partition, and every name its
 * key condition, filter and projection use.
 */
export function iamRequests(call: Call): IamRequest[] {
  const { input } = call;
  if (call.name === 'TransactWriteCommand') return (input.TransactItems as Record<string, Record<string, any>>[]).flatMap((item) => Object.entries(item).map(([kind, body]) => itemRequest(ACTION_OF_TRANSACTION[kind]!, body)));
  if (call.name === 'BatchGetCommand') {
    return Object.entries(input.RequestItems as Record<string, { Keys: Record<string, unknown>[]; ProjectionExpression?: string }>).map(([table, request]) => {
      const attributes = attributesNamed({ ...request, Key: request.Keys[0] ?? {}, ConditionExpression: request.ProjectionExpression });
      return { action: 'dynamodb:BatchGetItem', table, keys: request.Keys, attributes, context: { 'dynamodb:LeadingKeys': request.Keys.map((k) => String(k.pk)), 'dynamodb:Attributes': attributes, 'dynamodb:ReturnValues': ['NONE'] } };
    });
  }
  if (call.name === 'QueryCommand') {
    const partition = /^\s*(#?\w+)\s*=\s*(:\w+)/.exec(input.KeyConditionExpression);
    if (!partition) throw new Error(`no partition key equality in ${input.KeyConditionExpression}`);
    const attributes = attributesNamed({
      Key: {},
      ExpressionAttributeNames: input.ExpressionAttributeNames,
      ConditionExpression: [input.KeyConditionExpression.replace(/begins_with\(/g, '('), input.FilterExpression, input.ProjectionExpression?.replace(/,/g, ' AND ')].filter(Boolean).join(' AND '),
    });
    const context = { 'dynamodb:LeadingKeys': [String(input.ExpressionAttributeValues?.[partition[2]!])], 'dynamodb:Attributes': attributes, 'dynamodb:Select': input.Select === undefined ? undefined : [input.Select] };
    return [{ action: 'dynamodb:Query', table: input.TableName, ...(input.IndexName ? { index: input.IndexName } : {}), keys: [], attributes, context }];
  }
  const action = ACTION_OF_COMMAND[call.name];
  if (!action) throw new Error(`${call.name}: a call this file does not know how IAM authorizes`);
  return [itemRequest(action, input)];
}

/** IAM's answer for one request: an Allow applies and no Deny does. `tableArns`: table name -> its ARN in the template. */
export function isAllowed(statements: Statement[], request: IamRequest, tableArns: TableArns): boolean {
  const arn = tableArns[request.table];
  if (arn === undefined) throw new Error(`table ${request.table} has no ARN here`);
  const resource = request.index ? { 'Fn::Join': ['', [arn, `/index/${request.index}`]] } : arn;
  const matching = statements.filter(
    (s) =>
      [s.Action].flat().includes(request.action) &&
      [s.Resource].flat().some((r) => JSON.stringify(r) === JSON.stringify(resource)) &&
      Object.entries(s.Condition ?? {}).every(([operator, keys]) => Object.entries(keys).every(([key, patterns]) => conditionHolds(operator, request.context[key], [patterns].flat()))),
  );
  return matching.length > 0 && matching.every((s) => s.Effect !== 'Deny');
}

/** Whether the statements allow every request of a call. */
export const callAllowed = (statements: Statement[], call: Call, tableArns: TableArns) => iamRequests(call).every((r) => isAllowed(statements, r, tableArns));
