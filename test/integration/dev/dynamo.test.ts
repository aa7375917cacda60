import net from 'node:net';
import os from 'node:os';

/**
 * DynamoDB Local, as dev/dynamo.ts starts it for `npm start` and for this very test run (jest's
 * global set-up), answers on 127.0.0.1 and refuses connections on every other address of the
 * machine: nobody on the network can reach the local tables (credits, keys).
 */
const connects = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host, port, timeout: 3000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });

test('DynamoDB Local is reachable on 127.0.0.1 only, not on any other address of this machine', async () => {
  const endpoint = new URL(process.env.DYNAMODB_ENDPOINT!);
  expect(endpoint.hostname).toBe('127.0.0.1');
  const port = Number(endpoint.port);
  const others = Object.entries(os.networkInterfaces()).flatMap(([name, list]) =>
    (list ?? []).filter((a) => !a.internal).map((a) => (a.family === 'IPv6' && a.address.startsWith('fe80:') ? `${a.address}%${name}` : a.address)),
  );
  // Without a network address there is nothing to prove: fail rather than pass for nothing.
  expect(others.length).toBeGreaterThan(0);
  expect(await connects('127.0.0.1', port)).toBe(true);
  const reachable = [];
  for (const address of others) if (await connects(address, port)) reachable.push(address);
  expect(reachable).toEqual([]);
});
