import type { Redis } from 'ioredis';
import type { Generation } from './generation.js';
import { hashTag } from './keys.js';
import type { Seal } from '../../ledger/store.js';
import { type CommitReply, type Expected, SEAL, sealArgs, type Writes } from './commit.js';
import { casArgs, type CasDocument, FORGET, type Op } from './records.js';
import type { Watch } from './view.js';

/**
 * The forgotten flags of ARGV[from] on: h (its count), the h hashes, the h flags the decision
 * assumed. `flags_of(fkey, from)` answers the flags now (FORGET's lookup; nothing is looked up until
 * something was forgotten) and whether they are as assumed. The cluster's read, claim and session
 * steps check them in the session's slot, where ids are forgotten.
 */
const FLAGS = `
local function flags_of(fkey, from)
  local h = tonumber(ARGV[from])
  local any = redis.call('EXISTS', fkey .. ':count', fkey) > 0
  local flags, same = {}, true
  for k = 1, h do
    flags[k] = any and forgotten(fkey, ARGV[from + k]) or 0
    if flags[k] ~= tonumber(ARGV[from + h + k]) then same = false end
  end
  return flags, same
end
`;

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
export const CLAIM = `${FORGET}${FLAGS}
local v = redis.call('MGET', KEYS[1], KEYS[2], KEYS[3])
if (v[1] or '') ~= ARGV[1] or (v[2] or '') ~= ARGV[3] or (v[3] or '') ~= ARGV[4] then return {0, v} end
local flags, same = flags_of(KEYS[4], 5)
if not same then return {0, v, flags} end
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
 * KEYS: generation, marker, the required keys; ARGV: the expected generation and marker, the
 * forgotten flags as assumed (the forgotten key, then FLAGS'), the writes (flat), the trim (1, the
 * order list, bound, forgotten key, generation base; or 0), then the journal entry and grading
 * event (SEAL's). Answers {1, journal id, the players' keys the trim left to delete} or {0, …}.
 */
export const SESSION_COMMIT = `${FORGET}${FLAGS}${SEAL}
-- FORGET's trim, but the keys of the players' slots (records, settled rounds) are answered for the
-- process to delete, not deleted here: an id is forgotten, and its claim deleted, in this slot.
local function trim_apart(order, bound, forgot, base)
  local excess = redis.call('LLEN', order) - tonumber(bound)
  local claims = string.sub(order, 1, -6) .. 'claim:'
  local apart = {}
  while excess > 0 do
    local e = cjson.decode(redis.call('LPOP', order))
    if e.t then
      forget(forgot, e.th)
      if e.c then redis.call('DEL', e.c) end
      apart[#apart + 1] = e.t
      if e.s then forget(forgot, e.sh); apart[#apart + 1] = e.s end
    else
      local own = base .. '{p:' .. e[2] .. '}:'
      forget(forgot, e[1])
      redis.call('DEL', claims .. e[3])
      apart[#apart + 1] = own .. 'txn:' .. e[3]
      if e[4] then forget(forgot, e[4]); apart[#apart + 1] = own .. 'settled:' .. e[5] end
    end
    excess = excess - 1
  end
  return apart
end
local values = redis.call('MGET', KEYS[1], KEYS[2])
local present = redis.call('EXISTS', unpack(KEYS, 3))
if (values[1] or '') ~= ARGV[1] or (values[2] or '') ~= ARGV[2] or present < #KEYS - 2 then return {0, values, present} end
local flags, same = flags_of(ARGV[3], 4)
if not same then return {0, values, present, flags} end
local i = 5 + 2 * tonumber(ARGV[4])
for _ = 1, tonumber(ARGV[i]) do
  local n = tonumber(ARGV[i + 1])
  redis.call(unpack(ARGV, i + 2, i + 1 + n))
  i = i + 1 + n
end
i = i + 1
local apart = {}
if ARGV[i] == '1' then
  apart = trim_apart(ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4])
  i = i + 5
else
  i = i + 1
end
return {1, seal(i), apart}
`;

/**
 * The forgotten flags of a callback's hashes (FLAGS), read in the session's slot: KEYS the
 * forgotten-ids key, ARGV their count, the hashes (and as many assumed flags, unused here).
 */
export const FORGOTTEN = `${FORGET}${FLAGS}
return (flags_of(KEYS[1], 1))
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
  walletClaim(
    claim: string,
    gen: string,
    marker: string,
    forgotten: string,
    ...args: (string | number)[]
  ): Promise<[1] | [0, (string | null)[], number[]?]>;
  walletForgotten(forgotten: string, ...args: (string | number)[]): Promise<number[]>;
  walletPlayerCommit(keys: number, ...args: (string | number)[]): Promise<[1] | [0, (string | null)[]]>;
  walletSessionCommit(
    keys: number,
    ...args: (string | number)[]
  ): Promise<[1, number, string[]] | [0, (string | null)[], number, number[]?]>;
};

/** The cluster's scripts; `cas`: the compare-and-set's text (records.ts), routed by a key of the session's slot. */
export function defineClusterScripts(client: Redis, cas: string): void {
  client.defineCommand('walletCasAt', { numberOfKeys: 1, lua: cas });
  client.defineCommand('walletClaim', { numberOfKeys: 4, lua: CLAIM });
  client.defineCommand('walletForgotten', { numberOfKeys: 1, lua: FORGOTTEN });
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
  { ops, count, trim }: Writes,
  seal: Seal | undefined,
  exchange: <T>(sent: Promise<T>) => Promise<T>,
): Promise<CommitReply> {
  const { watched, required } = watch;
  const values = [...expected.values];
  let full = expected.full;
  const flags = [...expected.flags];
  const failed = (listed = 0): CommitReply => [0, values, flags, listed, required.length, full];
  // The forgotten flags as decided on (FLAGS), checked by the claim and the session's step.
  const assumed = [watch.hashes.length, ...watch.hashes, ...expected.flags];
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
    // Listed: created by another process since this one decided (its cache was stale), or lost:
    // the player's record now tells which (absent, lost; the next decision says so).
    if (listed === 1) values[2] = await exchange(client.get(watched[2]!));
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
    const reply = await exchange(
      client.walletClaim(claimKey, at.genKey, at.markerKey, watch.forgottenKey, values[CLAIM_AT] ?? '', claim[2]!, gen, marker, ...assumed),
    );
    if (reply[0] === 0) {
      [values[CLAIM_AT], values[0], values[1]] = [reply[1][0] ?? null, reply[1][1] ?? null, reply[1][2] ?? null];
      if (reply[2]) flags.splice(0, flags.length, ...reply[2]); // (forgotten meanwhile: refused, never applied again)
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
      watch.forgottenKey,
      ...assumed,
      ...flat(session),
      ...(trim ? [1, ...trim] : [0]),
      ...sealArgs(seal),
    ),
  );
  if (fence[0] === 0) {
    const [[gen, marker], present, now] = [fence[1], fence[2], fence[3]];
    if (present < required.length) throw at.lost('no scenario key');
    if (now) flags.splice(0, flags.length, ...now); // (forgotten meanwhile: decided again)
    // A reset came first: what the player's script wrote went to the ledger the reset ended (its
    // keys are swept, and nothing reads them); the failed check makes the callback decide again, on the new one.
    values[0] = gen ?? null;
    values[1] = marker ?? null;
    return failed();
  }
  // What the trim forgot in the session's slot goes from the players' slots after the reply (a key
  // left by a process gone meanwhile is read as the record it is: its id is forgotten already).
  const apart = fence[2];
  if (apart.length) void Promise.all(apart.map((key) => client.del(key))).catch(() => undefined);
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
