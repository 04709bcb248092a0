// The redis store's defaults, apart from the client library: `wallet-sim start` shows them in its
// help without loading ioredis (which only --store redis needs).
export const DEFAULT_REDIS_PREFIX = 'wallet-sim:';

/** --redis-timeout-ms: a command without a reply after this long fails (Redis frozen or overloaded). */
export const DEFAULT_REDIS_TIMEOUT_MS = 2_000;
