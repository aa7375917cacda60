import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

type Handler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
const handlers = new Map<string, Promise<Handler>>();

/**
 * Invokes function `id` (functions/<id>.ts) in this process, as the local gateway runs an
 * operation's: the monitors' polls and deliveries (dev/monitors.ts) and the jobs' pages
 * (dev/jobs.ts). Its module is loaded once, as a Lambda container keeps it (a failed load is tried
 * again by the next call).
 */
export const invokeInProcess = async (id: string, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  let handler = handlers.get(id);
  if (!handler) {
    handler = import(`../functions/${id}`).then((mod: { handler: Handler }) => mod.handler);
    handlers.set(id, handler);
    handler.catch(() => handlers.delete(id));
  }
  return (await handler)(event);
};
