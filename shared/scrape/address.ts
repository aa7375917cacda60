import dns, { type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import { isIPv4, isIPv6 } from 'node:net';

/**
 * Where an upstream connection may go: public unicast addresses only. The HTTP client (http.ts)
 * resolves every platform name through `guardedLookup`, which drops any address that is not
 * public, so a platform name that resolves (or is rebound) to loopback, a private network, the
 * cloud metadata service or any other special-purpose range is never connected to. The one
 * exception is UPSTREAM_<PLATFORM>_URL, which names its address on purpose (a fake or a mirror).
 */

/** Special-purpose IPv4 ranges (IANA registry): none of them is a platform's server. */
const V4_RANGES: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // this network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (the cloud metadata service)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
];

/**
 * Special-purpose IPv6 ranges; the IPv4 inside mapped, translated, NAT64 and 6to4 addresses is
 * checked as IPv4, and nothing outside global unicast (2000::/3) is public (isPublicAddress).
 */
const V6_RANGES: readonly (readonly [string, number])[] = [
  ['::', 96], // unspecified, loopback, IPv4-compatible
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo among them)
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
  ['fc00::', 7], // unique local (fd00:ec2::254: the cloud metadata service)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local
  ['ff00::', 8], // multicast
];

function v4Bytes(address: string): number[] {
  return address.split('.').map(Number);
}

/** The 16 bytes of an IPv6 address (with `::` and a trailing dotted quad). */
function v6Bytes(address: string): number[] {
  let s = address.replace(/%.*$/, '');
  const quad = s.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (quad) {
    const [a, b, c, d] = v4Bytes(quad[1]!);
    s = `${s.slice(0, -quad[1]!.length)}${((a! << 8) | b!).toString(16)}:${((c! << 8) | d!).toString(16)}`;
  }
  const [head = '', tail] = s.split('::');
  const groups = (part: string) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const all = [...h, ...Array(8 - h.length - t.length).fill(0), ...t];
  return all.flatMap((g) => [(g >> 8) & 0xff, g & 0xff]);
}

function inPrefix(bytes: readonly number[], net: readonly number[], prefix: number): boolean {
  for (let bit = 0; bit < prefix; bit++) {
    const mask = 0x80 >> bit % 8;
    if ((bytes[bit >> 3]! & mask) !== (net[bit >> 3]! & mask)) return false;
  }
  return true;
}

const V4 = V4_RANGES.map(([net, prefix]) => [v4Bytes(net), prefix] as const);
const V6 = V6_RANGES.map(([net, prefix]) => [v6Bytes(net), prefix] as const);

const publicV4 = (bytes: readonly number[]) => !V4.some(([net, prefix]) => inPrefix(bytes, net, prefix));

/** Whether an address is public unicast, where a platform's server can be. */
export function isPublicAddress(address: string): boolean {
  const plain = address.replace(/^\[|\]$/g, '');
  if (isIPv4(plain)) return publicV4(v4Bytes(plain));
  if (!isIPv6(plain)) return false;
  const b = v6Bytes(plain);
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  // IPv4-mapped ::ffff:a.b.c.d, IPv4-translated ::ffff:0:a.b.c.d, and NAT64 64:ff9b::a.b.c.d: the IPv4 address decides.
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return publicV4(b.slice(12));
  if (zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12)) return publicV4(b.slice(12));
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return publicV4(b.slice(12));
  // 6to4 2002:a.b.c.d::/48.
  if (b[0] === 0x20 && b[1] === 0x02) return publicV4(b.slice(2, 6));
  // Beyond those, only global unicast (2000::/3), less its special-purpose ranges.
  if ((b[0]! & 0xe0) !== 0x20) return false;
  return !V6.some(([net, prefix]) => inPrefix(b, net, prefix));
}

/** What resolves a name to addresses (dns.lookup's shape, always with every address). */
export type Resolver = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: Resolver = (hostname, options, callback) => dns.lookup(hostname, options, callback);
let resolver: Resolver = systemResolver;

/** Tests: resolve names with `r` instead of the system's DNS. Returns the function that restores it. */
export function resolveNamesWith(r: Resolver): () => void {
  resolver = r;
  return () => void (resolver = systemResolver);
}

/** The error a connection to a refused address fails with (http.ts tells it apart from a network failure). */
export const NOT_PUBLIC = 'ERR_UPSTREAM_ADDRESS_NOT_PUBLIC';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export function lookupWith(allowed: (address: string) => boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolver(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, options.all ? [] : '');
      const usable = addresses.filter((a) => allowed(a.address));
      if (usable.length === 0) {
        const refused = Object.assign(new Error(`${hostname} resolves to ${addresses.map((a) => a.address).join(', ') || 'nothing'}: not a public address`), { code: NOT_PUBLIC });
        return callback(refused, options.all ? [] : '');
      }
      if (options.all) return callback(null, usable);
      callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}

/** The lookup of every direct upstream connection: public addresses only. */
export const guardedLookup = lookupWith(isPublicAddress);

/** The lookup of UPSTREAM_<PLATFORM>_URL's host: any address (the operator named it). */
export const overrideLookup = lookupWith(() => true);
