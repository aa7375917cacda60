import { webhookUrlProblem } from '../../../shared/api/webhook-url';

/**
 * The webhook address guard on address literals (no name resolution, no socket): only global
 * unicast IPv6, and every IPv4-mapped or -translated form read as the IPv4 it carries.
 */
const REFUSED = 'Must be on a public address (no private, loopback, link-local or metadata address)';

test.each([
  ['IPv4-translated loopback', 'https://[::ffff:0:7f00:1]/hook'],
  ['IPv4-translated metadata', 'https://[::ffff:0:a9fe:a9fe]/hook'],
  ['outside 2000::/3', 'https://[5f00::1]/hook'],
  ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook'],
  ['NAT64 of the metadata address', 'https://[64:ff9b::a9fe:a9fe]/hook'],
  ['local-use NAT64', 'https://[64:ff9b:1::a00:1]/hook'],
  ['6to4 of a private address', 'https://[2002:a00:1::1]/hook'],
  ['documentation', 'https://[2001:db8::1]/hook'],
  ['unique local', 'https://[fd00:ec2::254]/hook'],
])('%s (%s) is refused', async (_what, url) => {
  expect(await webhookUrlProblem(url)).toBe(REFUSED);
});

test.each(['https://[2606:4700::6810:85e5]/hook', 'https://[64:ff9b::5db8:d70e]/hook', 'https://[::ffff:93.184.215.14]/hook', 'https://93.184.215.14/hook'])('%s is allowed', async (url) => {
  expect(await webhookUrlProblem(url)).toBeNull();
});
