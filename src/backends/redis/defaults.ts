// The redis store's defaults, apart from the client library: `wallet-sim start` shows them in its
// help without loading ioredis (which only --store redis needs).
export const DEFAULT_REDIS_PREFIX = 'wallet-sim:';

/** --redis-timeout-ms: a command without a reply after this long fails (Redis frozen or overloaded). */
export const DEFAULT_REDIS_TIMEOUT_MS = 2_000;

/** How --redis-cluster's node list travels where a Redis URL does: `redis-cluster://host:port,host:port`. */
export const CLUSTER_SCHEME = 'redis-cluster://';
