import net from 'node:net';

/**
 * The unit level's promise, held rather than hoped for: a file under test/unit/ opens no socket
 * (no DynamoDB, no fake upstream, no gateway: not even on loopback) and synthesizes no stack. Files
 * that need one of those belong to test/integration/, test/gateway/ or test/infra/ (docs/testing.md).
 * Installed for every test file (jest's setupFilesAfterEnv), active only under test/unit/.
 */
const testPath = (expect.getState().testPath ?? '').replace(/\\/g, '/');

const originalConnect = net.Socket.prototype.connect;
const originalListen = net.Server.prototype.listen;

if (testPath.includes('/test/unit/')) {
  const refuse = (what: string) => {
    throw new Error(`${what} in a unit test (${testPath}): unit tests open no socket and synthesize no stack; move the file to test/integration/ (or gateway/, infra/)`);
  };
  net.Socket.prototype.connect = function connect() {
    return refuse('An outbound connection');
  } as typeof net.Socket.prototype.connect;
  net.Server.prototype.listen = function listen() {
    return refuse('A listening server');
  } as typeof net.Server.prototype.listen;
  // jest keeps a module registry of its own: a mock is how a require of the CDK is refused.
  for (const name of ['aws-cdk-lib', 'aws-cdk-lib/assertions']) jest.mock(name, () => refuse(`Loading ${name}`));
  // The core modules are the worker's own, shared with the next file it runs: put them back.
  afterAll(() => {
    net.Socket.prototype.connect = originalConnect;
    net.Server.prototype.listen = originalListen;
  });
}
