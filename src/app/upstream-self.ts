import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** Every address a name resolves to (none when it does not: the reach check says why). */
async function addressesOf(host: string): Promise<string[]> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return [bare];
  try {
    return (await lookup(bare, { all: true })).map((a) => a.address);
  } catch {
    return [];
  }
}

const WILDCARD = new Set(['0.0.0.0', '::']);
const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

/**
 * Whether `upstream` is this wallet-sim itself, listening on `host` port `port`: the callback URL
 * its own start line prints, given back as --upstream, forwards each callback to itself again and
 * again. Only a plain-HTTP URL on the same port can be (wallet-sim does not speak TLS); a host
 * listening on every interface is reached by any of this machine's addresses.
 */
export async function upstreamIsSelf(upstream: string, host: string, port: number): Promise<boolean> {
  const url = new URL(upstream);
  if (port === 0 || url.protocol !== 'http:' || Number(url.port || 80) !== port) return false;
  const targets = await addressesOf(url.hostname);
  if (WILDCARD.has(host)) {
    const local = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
    return targets.some((a) => WILDCARD.has(a) || LOOPBACK.test(a) || local.includes(a));
  }
  const mine = await addressesOf(host);
  return targets.some((a) => mine.includes(a) || (WILDCARD.has(a) && mine.some((m) => LOOPBACK.test(m))));
}
