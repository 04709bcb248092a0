// The redis store's defaults, apart from the client library: `wallet-sim start` shows them in its
// help without loading ioredis (which only --store redis needs).
export const DEFAULT_REDIS_PREFIX = 'wallet-sim:';

/** --redis-timeout-ms: a command without a reply after this long fails (Redis frozen or overloaded). */
export const DEFAULT_REDIS_TIMEOUT_MS = 2_000;

/** How --redis-cluster's node list travels where a Redis URL does: `redis-cluster://host:port,host:port`. */
export const CLUSTER_SCHEME = 'redis-cluster://';

/**
 * Why --redis-prefix cannot be used on a Redis Cluster (undefined: it can). The session's keys share
 * a slot through the hash tag `{<prefix>}` (keys.ts); a `{` or `}` in the prefix moves the tag, so
 * they would spread over slots and every callback fail (CROSSSLOT) while the process seems to start.
 */
export function clusterPrefixProblem(prefix: string): string | undefined {
  if (!/[{}]/.test(prefix)) return undefined;
  return (
    `--redis-prefix "${prefix}" holds a "{" or "}", which on a Redis Cluster moves the wallet's keys to other hash slots ` +
    `(every callback would fail): pick a prefix without braces, e.g. --redis-prefix ${DEFAULT_REDIS_PREFIX}`
  );
}
