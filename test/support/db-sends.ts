import { db } from '../../shared/db/client';

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Sent = { name: string; input: Record<string, any> };
export type Rewrite = (sent: Sent, answer: () => Promise<any>) => Promise<any>;

/**
 * The DynamoDB commands the process's document client sends while `run` runs, by command name and
 * input, in order; `rewrite` may change a call's answer (inject a failure, drop an item). The client
 * is the real one: every call still goes to DynamoDB Local unless `rewrite` says otherwise.
 */
export async function dbSends<T>(run: () => Promise<T>, rewrite?: Rewrite): Promise<{ result: T; calls: Sent[] }> {
  const client = db();
  const send = client.send.bind(client);
  const calls: Sent[] = [];
  const spy = jest.spyOn(client, 'send').mockImplementation(((command: { constructor: { name: string }; input: Record<string, any> }) => {
    const call = { name: command.constructor.name, input: command.input };
    calls.push(call);
    const answer = () => send(command as never);
    return rewrite ? rewrite(call, answer) : answer();
  }) as never);
  try {
    return { result: await run(), calls };
  } finally {
    spy.mockRestore();
  }
}
