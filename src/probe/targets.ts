import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Agent } from 'undici';
import { lazyPackage } from '../kernel/lazy-package.js';

const undici = lazyPackage<typeof import('undici')>('undici');

/**
 * Where a hosted probe may go (docs/hosted.md, "Probe as a service"): never to the host's own
 * network. A URL whose host is, or resolves to, an address of a special-purpose block (RFC 6890's
 * registries: loopback, private, link-local, documentation, multicast, reserved, …) or one of this
 * host's own interfaces is refused before any byte is sent; the address actually connected to is
 * checked again (the agent's lookup), so a name that rebinds between the check and the connection
 * fails the run, naming the class. An IPv6 address that carries an IPv4 one (mapped, compatible,
 * NAT64's 64:ff9b::/96, 6to4's 2002::/16) is judged as the IPv4 address it carries.
 */

const V4: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['127.0.0.0', 8, 'loopback'],
  ['10.0.0.0', 8, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['100.64.0.0', 10, 'shared'],
  ['169.254.0.0', 16, 'link-local'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['192.0.2.0', 24, 'documentation'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // (255.255.255.255, the broadcast address, included)
];
const V6: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'reserved'], // (IPv4-compatible addresses are judged by the IPv4 address before this)
  ['64:ff9b:1::', 48, 'private'],
  ['100::', 64, 'reserved'],
  ['2001::', 23, 'reserved'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'private'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'private'],
  ['ff00::', 8, 'multicast'],
];
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254']);

const lists = new Map<string, BlockList>();
for (const [net, prefix, cls] of V4) listFor(cls).addSubnet(net, prefix, 'ipv4');
for (const [net, prefix, cls] of V6) listFor(cls).addSubnet(net, prefix, 'ipv6');
function listFor(cls: string): BlockList {
  let list = lists.get(cls);
  if (!list) lists.set(cls, (list = new BlockList()));
  return list;
}

/**
 * The class an address is refused as ("loopback", "private", "link-local (metadata)", "this host's
 * own", …), or undefined when it is public.
 */
export function refusedClass(address: string, own: ReadonlySet<string> = ownAddresses()): string | undefined {
  let a = address.replace(/^\[|\]$/g, '').toLowerCase();
  const family = isIP(a);
  if (family === 0) return undefined;
  if (family === 6) a = carriedV4(a) ?? a;
  const type = isIP(a) === 4 ? 'ipv4' : 'ipv6';
  if (METADATA.has(a)) return 'link-local (metadata)';
  for (const [cls, list] of lists) if (list.check(a, type)) return cls;
  if (own.has(a)) return "this host's own";
  return undefined;
}

/** This host's interface addresses (a public one included: the probe must not reach the host itself). */
function ownAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces()))
    for (const { address } of list ?? []) out.add(carriedV4(address.toLowerCase()) ?? address.toLowerCase());
  return out;
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, translated, NAT64, 6to4), or undefined. */
export function carriedV4(a: string): string | undefined {
  const g = groups(a);
  if (!g) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && g[5] === 0xffff) return v4(g[6]!, g[7]!); // ::ffff:a.b.c.d, mapped
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return v4(g[6]!, g[7]!); // ::ffff:0:a.b.c.d, translated
  if (zero(0, 6) && (g[6] !== 0 || g[7]! > 1)) return v4(g[6]!, g[7]!); // ::a.b.c.d, compatible (not :: or ::1)
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return v4(g[6]!, g[7]!); // 64:ff9b::/96, NAT64
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!); // 2002::/16, 6to4
  return undefined;
}

/** An IPv6 address as its eight 16-bit groups (a trailing dotted IPv4 part read as two), or undefined. */
function groups(a: string): number[] | undefined {
  if (isIP(a) !== 6) return undefined;
  let text = a.replace(/%.*$/, ''); // (a zone id)
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [b0, b1, b2, b3] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string?];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((x) => parseInt(x, 16)));
  const [h, t] = [parse(head), tail === undefined ? [] : parse(tail)];
  const fill = tail === undefined ? [] : new Array<number>(8 - h.length - t.length).fill(0);
  const out = [...h, ...fill, ...t];
  return out.length === 8 ? out : undefined;
}

/** "a" or "an", as the class's first sound wants it. */
const article = (cls: string): string => (/^[aeiou]/.test(cls) ? 'an' : 'a');

export class TargetRefused extends Error {}

/** How a connection refused at connect time ends its message (src/probe/upstream-errors.ts counts it). */
export const REBINDING_REFUSED = 'refused (DNS rebinding)';

/**
 * Why the probe may not go to this URL (one line naming the address class), or undefined. Resolves
 * the name; the address a name resolves to is not named (a tenant must not map the host's internal
 * names by asking), only its class. A name that does not resolve is not refused here: the run finds
 * the wallet unreachable, as it would any wallet that is not there.
 */
export async function targetRefusal(url: string, lookup: typeof dnsLookup = dnsLookup): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${url} is not a URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `${parsed.protocol} is not http: or https:`;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const own = ownAddresses();
  const direct = refusedClass(host, own);
  if (direct) return `${host} is ${article(direct)} ${direct} address`;
  let addresses: LookupAddress[];
  try {
    addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
      lookup(host, { all: true }, (e, list) => (e ? reject(e) : resolve(list))),
    );
  } catch {
    return undefined;
  }
  for (const { address } of addresses) {
    const cls = refusedClass(address, own);
    if (cls) return `${host} resolves to ${article(cls)} ${cls} address`;
  }
  return undefined;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * An agent that checks the address each connection goes to: the name is resolved once more at
 * connect time and a refused class fails that connection ("… rebinds to …"), so what was checked is
 * what is connected to.
 */
export function guardedAgent(): Agent {
  const lookup = (hostname: string, options: object, callback: LookupCallback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, list) => {
      if (err) return callback(err, []);
      for (const { address } of list) {
        const cls = refusedClass(address);
        if (cls)
          return callback(
            Object.assign(new TargetRefused(`${hostname} now resolves to ${article(cls)} ${cls} address: ${REBINDING_REFUSED}`), {
              code: 'ETARGETREFUSED',
            }),
            [],
          );
      }
      const all = (options as { all?: boolean }).all;
      if (all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
  return new (undici().Agent)({ connect: { lookup: lookup as never } });
}
