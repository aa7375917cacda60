import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/**
 * Another of the stack's functions, invoked by name with the proxy event API Gateway would hand it,
 * and its answer: how a monitor's poll reaches its operation's function, and the MCP function the
 * monitors API's (each allowed to invoke only those: infra/). A function that fails (its error
 * instead of an answer) throws here.
 */
let lambda: LambdaClient | undefined;
export async function invokeProxy(functionName: string, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const res = await (lambda ??= new LambdaClient({})).send(new InvokeCommand({ FunctionName: functionName, Payload: Buffer.from(JSON.stringify(event)) }));
  if (res.FunctionError) throw new Error(`function ${functionName} failed: ${res.FunctionError}`);
  return JSON.parse(Buffer.from(res.Payload ?? new Uint8Array()).toString('utf8')) as APIGatewayProxyResult;
}
