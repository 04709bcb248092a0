import type { Redis } from 'ioredis';
/**
 * Where a wallet's keys live (docs/scale-out.md, "What lives where"): one layout for a single Redis
 * and for Redis Cluster. On a cluster a script may touch keys of one hash slot only, and the slot
 * is picked by the first `{…}` of a key (its hash tag), so every key carries the tag of what it
 * belongs to:
 *
 *   `{<prefix>}`      the session's: generation, marker, scenario, rule counters, journal, grading,
 *                     the players set, the applied-transaction list and the transaction_ids'
 *                     claims (which player and body an id was applied to); the tag is the prefix,
 *                     so several wallets, hosted mode's tenants among them, spread over the cluster
 *   `{p:<user_id>}`   one player's: its record, open and settled rounds, applied transactions
 *
 * Every key still starts with the prefix, and every key of a generation with `<prefix>g<n>:` (a
 * reset's sweep matches them, as before). On a single Redis the tags change nothing.
 */
export class KeyLayout {
  /** What every session-wide key starts with: the prefix, then the session's tag. */
  readonly session: string;

  constructor(readonly prefix: string) {
    this.session = `${prefix}{${prefix}}`;
  }

  get gen(): string {
    return `${this.session}gen`;
  }

  /** The last generation a reset or a seed took on a cluster (cluster-generations.ts, `newGeneration`). */
  get taken(): string {
    return `${this.session}gen:taken`;
  }

  get marker(): string {
    return `${this.session}initialized`;
  }

  /** The keys of generation `n`. */
  of(n: number): GenKeys {
    return new GenKeys(`${this.prefix}g${n}:`, `{${this.prefix}}:`);
  }
}

/** The keys of one generation (`<prefix>g<n>:`). */
export class GenKeys {
  constructor(
    /** What every key of the generation starts with. */
    readonly base: string,
    private readonly sessionTag: string,
  ) {}

  // (records.ts's FORGET trim builds `own(user) + 'txn:'/'settled:'` and `claim` from an order entry
  // in Lua: change these names there too; test/redis/retention.test.ts checks those keys go.)
  private own(userId: string): string {
    return `${this.base}{p:${storedId(userId)}}:`;
  }

  player(userId: string): string {
    return `${this.own(userId)}player`;
  }

  round(userId: string, gameNo: string): string {
    return `${this.own(userId)}round:${storedId(gameNo)}`;
  }

  settled(userId: string, gameNo: string): string {
    return `${this.own(userId)}settled:${storedId(gameNo)}`;
  }

  /** The transaction as applied to the player (its record: replays read it). */
  txn(userId: string, transactionId: string): string {
    return `${this.own(userId)}txn:${storedId(transactionId)}`;
  }

  /**
   * The transaction_id's claim: one player and body per id, across players. In the session's slot: a
   * lost master then fails its own players' callbacks only (the session's master is every callback's).
   */
  claim(transactionId: string): string {
    return `${this.base}${this.sessionTag}claim:${storedId(transactionId)}`;
  }

  /** The set of the players' ids. */
  get players(): string {
    return `${this.base}${this.sessionTag}players`;
  }

  /** The applied transactions, oldest first (the ledger; --retain-transactions forgets from its head). */
  get order(): string {
    return `${this.base}${this.sessionTag}order`;
  }

  /** Forgotten ids (records.ts, FORGET): `<forgotten>:<hhhh>` buckets and `<forgotten>:count`. */
  get forgotten(): string {
    return `${this.base}${this.sessionTag}forgotten`;
  }
}

/**
 * The hash tag that picks a key's slot (Redis Cluster's rule: the part between the first `{` and
 * the first `}` after it, when not empty; else the whole key). Keys with one tag share a slot.
 */
export function hashTag(key: string): string {
  const open = key.indexOf('{');
  if (open < 0) return key;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * An id as Redis holds it (in a key, in the players set). A string with a lone UTF-16 surrogate has
 * no UTF-8 form (ioredis would send U+FFFD for it, so two such ids would share a key) and Lua's
 * cjson refuses it: it is kept as `~` and its JSON text (ASCII), which no other id is in practice.
 * Every other id is kept as it is. The records themselves are JSON, which escapes it.
 */
export const storedId = (id: string): string => (LONE_SURROGATE.test(id) ? `~${JSON.stringify(id)}` : id);

/** The id a `storedId` holds. */
export function idOf(stored: string): string {
  if (!stored.startsWith('~"')) return stored;
  try {
    const id: unknown = JSON.parse(stored.slice(1));
    return typeof id === 'string' && LONE_SURROGATE.test(id) ? id : stored;
  } catch {
    return stored;
  }
}

/**
 * Refuses a prefix under which a wallet-sim before the hash-tagged layout (29 Nov 2026) left a
 * wallet: this version would not read it and would start an empty one beside it, silently.
 */
export async function refuseOlderLayout(client: Pick<Redis, 'exists'>, layout: KeyLayout): Promise<void> {
  const older = `${layout.prefix}gen`;
  if ((await client.exists(layout.gen)) || !(await client.exists(older))) return;
  throw new Error(
    `Redis holds a wallet an older wallet-sim wrote under the prefix "${layout.prefix}" (${older}, ${layout.prefix}g<n>:…), ` +
      'in a key layout this version does not read (docs/scale-out.md, "Upgrading"): start with another --redis-prefix, ' +
      `or delete those keys (redis-cli -u URL --scan --pattern '${layout.prefix}*' | xargs redis-cli -u URL unlink, URL the --redis-url; ` +
      'on a cluster, on each master) if the old ledger is not needed',
  );
}

/** Where players admitted but not listed yet are counted (cluster-scripts.ts, ABSENT_PLAYER): beside the players set, in its slot. */
export const admittedKey = (playersKey: string) => `${playersKey}:admissions`;
