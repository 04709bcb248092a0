import type { Redis } from 'ioredis';
import type { Generation } from './generation.js';
import { hashTag } from './keys.js';
import type { Seal } from '../../ledger/store.js';
import { type CommitReply, type Expected, SEAL, sealArgs, type Writes } from './commit.js';
import { casArgs, type CasDocument, type Op } from './records.js';
import type { Watch } from './view.js';

/**
 * One callback on Redis Cluster (docs/scale-out.md, "Redis Cluster"): a script may touch one slot
 * only, so the single-Redis commit script (commit.ts) goes in up to three steps, each checking what
 * it owns before writing, in this order:
 *
 * 0. a player decided on as absent (or found absent by step 2) must not be listed in the session's
 *    players: listed, its master lost it (restarted without persistence), and the callback is R1
 *    with the lost state, as on one Redis; never a new player at the default balance. The players
 *    are as full as decided on (--tenant-players), and a player the callback creates is admitted
 *    (ABSENT_PLAYER). (One round trip more, for a player's first callback only.)
 * 1. the transaction_id's claim (the session's slot, keys.ts), when the callback applies a
 *    transaction: still as read (absent, or the player's own claim left by a callback that never
 *    applied), and the generation and marker as decided on; then set to this player and body.
 *    Another claim answers as a failed check: the callback is decided again on it (another
 *    player's claim: R3).
 * 2. the player's script (the player's slot): its records as decided on; then its writes.
 * 3. the session's (the session's slot): the generation and marker as decided on and the required
 *    keys present; then the session's writes (the players set, the applied-transaction list). After
 *    a reset (another process's, not seen yet) this check fails: what step 2 wrote went to the
 *    ledger the reset ended, which nothing reads any more, and the callback is decided again on the
 *    new ledger, as after any failed check. A lost state (no generation or scenario key) is R1.
 *
 * The journal entry and the grading event are added by step 3, in the session's slot where they live:
 * a callback answered at once is journalled with its commit, as on a single Redis.
 */
export const CLAIM = `
local v = redis.call('MGET', KEYS[1], KEYS[2], KEYS[3])
if (v[1] or '') ~= ARGV[1] or (v[2] or '') ~= ARGV[3] or (v[3] or '') ~= ARGV[4] then return {0, v} end
redis.call('SET', KEYS[1], ARGV[2])
return {1}
`;

/** KEYS: the player's watched keys; ARGV: their expected values ('' absent), then the writes (flat: words, then the words). */
export const PLAYER_COMMIT = `
local values = redis.call('MGET', unpack(KEYS))
for k = 1, #KEYS do
  if (values[k] or '') ~= ARGV[k] then return {0, values} end
end
local i = #KEYS + 1
for _ = 1, tonumber(ARGV[i]) do
  local n = tonumber(ARGV[i + 1])
  redis.call(unpack(ARGV, i + 2, i + 1 + n))
  i = i + 1 + n
end
return {1}
`;

/**
 * KEYS: generation, marker, the required keys; ARGV: the expected generation and marker, the writes
 * (flat), then the journal entry and grading event (SEAL's). Answers {1, journal id} or {0, …}.
 */
export const SESSION_COMMIT = `${SEAL}
local values = redis.call('MGET', KEYS[1], KEYS[2])
local present = redis.call('EXISTS', unpack(KEYS, 3))
if (values[1] or '') ~= ARGV[1] or (values[2] or '') ~= ARGV[2] or present < #KEYS - 2 then return {0, values, present} end
local i = 3
for _ = 1, tonumber(ARGV[i]) do
  local n = tonumber(ARGV[i + 1])
  redis.call(unpack(ARGV, i + 2, i + 1 + n))
  i = i + 1 + n
end
return {1, seal(i + 1)}
`;

/**
 * A player absent from its slot, seen from the session's: whether it is listed (its master lost it),
 * and whether one more player would pass the bound (--tenant-players). KEYS: the players set and
 * its admissions (`admittedKey`); ARGV: the player's id as stored, the most players ('': no bound),
 * '1' to admit it. A player is admitted (counted) here before step 2 creates it and listed by step
 * 3, which removes its admission: processes racing to add players never pass the bound together.
 * An admission left by a crash between the steps still counts, until the player's resend (which
 * finds it) or a reset: the bound is never passed, a slot may be held.
 */
export const ABSENT_PLAYER = `
local players, admitted, user, max = KEYS[1], KEYS[2], ARGV[1], ARGV[2]
if redis.call('SISMEMBER', players, user) == 1 then return {1, 0} end
if max == '' or redis.call('SISMEMBER', admitted, user) == 1 then return {0, 0} end
if redis.call('SCARD', players) + redis.call('SCARD', admitted) >= tonumber(max) then return {0, 1} end
if ARGV[3] == '1' then redis.call('SADD', admitted, user) end
return {0, 0}
`;

/** Where players admitted but not listed yet are counted (ABSENT_PLAYER): beside the players set, in its slot. */
export const admittedKey = (playersKey: string) => `${playersKey}:admitted`;

export type ClusterClient = Redis & {
  walletAbsent(players: string, admitted: string, user: string, max: string, admit: string): Promise<[number, number]>;
  walletCasAt(routeKey: string, ...args: (string | number)[]): Promise<number>;
  walletClaim(claim: string, gen: string, marker: string, ...args: string[]): Promise<[1] | [0, (string | null)[]]>;
  walletPlayerCommit(keys: number, ...args: (string | number)[]): Promise<[1] | [0, (string | null)[]]>;
  walletSessionCommit(keys: number, ...args: (string | number)[]): Promise<[1, number] | [0, (string | null)[], number]>;
};

/** The cluster's scripts; `cas`: the compare-and-set's text (records.ts), routed by a key of the session's slot. */
export function defineClusterScripts(client: Redis, cas: string): void {
  client.defineCommand('walletCasAt', { numberOfKeys: 1, lua: cas });
  client.defineCommand('walletClaim', { numberOfKeys: 3, lua: CLAIM });
  client.defineCommand('walletAbsent', { numberOfKeys: 2, lua: ABSENT_PLAYER });
  client.defineCommand('walletPlayerCommit', { lua: PLAYER_COMMIT });
  client.defineCommand('walletSessionCommit', { lua: SESSION_COMMIT });
}

const flat = (ops: readonly Op[]): (string | number)[] => [ops.length, ...ops.flatMap((op) => [op.length, ...op])];

/** The positions of a Watch's keys (view.ts): generation, marker, player, transaction, claim, round, settled round. */
const CLAIM_AT = 4;

/**
 * The commit of one callback on a cluster, answering as the single-Redis script does (commit.ts):
 * {1, the journal id} or {0, the current values as a read}.
 */
export async function clusterCommit(
  client: ClusterClient,
  at: Generation,
  watch: Watch,
  expected: Expected,
  { ops, count }: Writes,
  seal: Seal | undefined,
  exchange: <T>(sent: Promise<T>) => Promise<T>,
): Promise<CommitReply> {
  const { watched, required } = watch;
  const values = [...expected.values];
  let full = expected.full;
  const failed = (listed = 0): CommitReply => [0, values, expected.flags.map(() => 0), listed, required.length, full];
  // A player decided on as absent, or found absent by its script: still listed in the session's
  // players means its master lost it (restarted without persistence), never a new player. And one
  // more player must not pass --tenant-players (checked here, added by step 3: processes racing to
  // add players may pass the bound by one each, which one Redis's single script does not allow).
  const { playersKey, user, maxPlayers } = watch;
  // (the callback creates the player: step 3 lists it; its admission goes then)
  const creates = ops.some(([command, key, member]) => command === 'SADD' && key === playersKey && member === user);
  const absent = async () => {
    const [listed, now] = await exchange(client.walletAbsent(playersKey, admittedKey(playersKey), user, maxPlayers, creates ? '1' : ''));
    full = now;
    return listed;
  };
  if (values[2] === null) {
    const listed = await absent();
    if (listed === 1 || full !== expected.full) return failed(listed);
  }
  const claimKey = watched[CLAIM_AT]!;
  const sessionTag = hashTag(at.genKey);
  const claim = ops.find((op) => op[1] === claimKey);
  const session = ops.filter((op) => op !== claim && hashTag(op[1]!) === sessionTag);
  // The player's callbacks counted (RedisShared.takeCount): the count is the session's.
  if (count) session.push(['HINCRBY', count[0], count[1], String(count[2])]);
  if (creates && maxPlayers !== '') session.push(['SREM', admittedKey(playersKey), user]);
  const player = ops.filter((op) => hashTag(op[1]!) !== sessionTag);
  if (claim) {
    const [gen, marker] = [values[0] ?? '', values[1] ?? ''];
    const reply = await exchange(client.walletClaim(claimKey, at.genKey, at.markerKey, values[CLAIM_AT] ?? '', claim[2]!, gen, marker));
    if (reply[0] === 0) {
      [values[CLAIM_AT], values[0], values[1]] = [reply[1][0] ?? null, reply[1][1] ?? null, reply[1][2] ?? null];
      return failed();
    }
    values[CLAIM_AT] = claim[2]!;
  }
  const own = [2, 3, ...(watched.length > 5 ? [5, 6] : [])];
  const checked = await exchange(
    client.walletPlayerCommit(own.length, ...own.map((i) => watched[i]!), ...own.map((i) => values[i] ?? ''), ...flat(player)),
  );
  if (checked[0] === 0) {
    own.forEach((i, k) => (values[i] = checked[1][k] ?? null));
    return failed(values[2] === null ? await absent() : 0);
  }
  const fence = await exchange(
    client.walletSessionCommit(
      2 + required.length,
      at.genKey,
      at.markerKey,
      ...required,
      values[0] ?? '',
      values[1] ?? '',
      ...flat(session),
      ...sealArgs(seal),
    ),
  );
  if (fence[0] === 0) {
    const [[gen, marker], present] = [fence[1], fence[2]];
    if (present < required.length) throw at.lost('no scenario key');
    // A reset came first: what the player's script wrote went to the ledger the reset ended (its
    // keys are swept, and nothing reads them); the failed check makes the callback decide again, on the new one.
    values[0] = gen ?? null;
    values[1] = marker ?? null;
    return failed();
  }
  return [1, fence[1]];
}

/**
 * An admin write (a seed, an update, a reset) on a cluster: the check (generation, marker) and the
 * session's writes in one script in its slot; the other writes (each a key of its own) apart, after
 * the check, or before it when it starts a new generation (nobody reads those keys before it flips).
 */
export async function clusterCas(
  client: ClusterClient,
  at: Generation,
  doc: CasDocument,
  exchange: <T>(sent: Promise<T>) => Promise<T>,
): Promise<boolean> {
  const tag = hashTag(at.genKey);
  const session = doc.ops.filter((op) => hashTag(op[1]!) === tag);
  const rest = () => Promise.all(doc.ops.filter((op) => hashTag(op[1]!) !== tag).map((op) => exchange(client.call(...op))));
  const flips = session.some(([, key]) => key === at.genKey);
  if (flips) await rest();
  const done = (await exchange(client.walletCasAt(at.genKey, ...casArgs({ expect: doc.expect, ops: session })))) === 1;
  if (done && !flips) await rest();
  return done;
}
