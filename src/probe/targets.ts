import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { Agent } from 'undici';
import { lazyPackage } from '../kernel/lazy-package.js';

const undici = lazyPackage<typeof import('undici')>('undici');

/**
 * Where a hosted probe may go (docs/hosted.md, "Probe as a service"): never to the host's own
 * network. A URL whose host is, or resolves to, one of these address classes is refused before any
 * byte is sent; the address actually connected to is checked again (the agent's lookup), so a name
 * that rebinds between the check and the connection fails the run, naming the class. IPv4-mapped
 * IPv6 addresses (::ffff:127.0.0.1) are judged as the IPv4 address they carry.
 */

const V4: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['127.0.0.0', 8, 'loopback'],
  ['10.0.0.0', 8, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['100.64.0.0', 10, 'shared'],
  ['169.254.0.0', 16, 'link-local'],
];
const V6: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fc00::', 7, 'private'],
  ['fe80::', 10, 'link-local'],
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

/** The class an address is refused as ("loopback", "private", "link-local (metadata)", …), or undefined when it is public. */
export function refusedClass(address: string): string | undefined {
  let a = address.replace(/^\[|\]$/g, '').toLowerCase();
  const family = isIP(a);
  if (family === 0) return undefined;
  if (family === 6) {
    const mapped = mappedV4(a);
    if (mapped !== undefined) a = mapped;
  }
  const type = isIP(a) === 4 ? 'ipv4' : 'ipv6';
  if (METADATA.has(a)) return 'link-local (metadata)';
  for (const [cls, list] of lists) if (list.check(a, type)) return cls;
  return undefined;
}

/** ::ffff:a.b.c.d or ::ffff:xxxx:yyyy as its IPv4 address. */
function mappedV4(a: string): string | undefined {
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a) ?? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (dotted) return dotted[1];
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(a);
  if (!hex) return undefined;
  const hi = parseInt(hex[1]!, 16);
  const lo = parseInt(hex[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

export class TargetRefused extends Error {}

/** How a connection refused at connect time ends its message (src/probe/upstream-errors.ts counts it). */
export const REBINDING_REFUSED = 'refused (DNS rebinding)';

/** Why the probe may not go to this URL (one line naming the address class), or undefined. Resolves the name. */
export async function targetRefusal(url: string): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${url} is not a URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `${parsed.protocol} is not http: or https:`;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const direct = refusedClass(host);
  if (direct) return `${host} is a ${direct} address`;
  let addresses: LookupAddress[];
  try {
    addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
      dnsLookup(host, { all: true }, (e, list) => (e ? reject(e) : resolve(list))),
    );
  } catch (e) {
    return `${host} does not resolve (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
  for (const { address } of addresses) {
    const cls = refusedClass(address);
    if (cls) return `${host} resolves to ${address}, a ${cls} address`;
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
            Object.assign(new TargetRefused(`${hostname} now resolves to ${address}, a ${cls} address: ${REBINDING_REFUSED}`), {
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
