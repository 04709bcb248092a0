import type { Seal } from '../../ledger/store.js';
import { JOURNAL_ADD } from './journal-add.js';
import { FORGET, type Op, PLAYERS_FULL, type ReadReply, type Trim } from './records.js';
import type { Watch } from './view.js';

/**
 * Numbers and adds a callback's journal entry from ARGV[i] on (`sealArgs`: its JSON is `{"id":<id>`
 * and the tail the process built; trimmed to the journal's bounds), then its grading event with
 * that id, to the stream of the session Redis holds (none held: the state is lost, nothing graded).
 * Answers the id (0: nothing to journal). The commit script's, and a cluster's session step's.
 */
export const SEAL = `${JOURNAL_ADD}
local function seal(i)
  if ARGV[i] ~= '1' then return 0 end
  local id = redis.call('INCR', ARGV[i + 3])
  local sid = tostring(id)
  local n = tonumber(ARGV[i + 6]) + #sid
  journal_add(ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 4]), tonumber(ARGV[i + 5]), n,
    {'id', sid, 'n', tostring(n), 'e', '{"id":' .. sid .. ARGV[i + 7]})
  i = i + 8
  if ARGV[i] == '1' then
    -- The session Redis holds now (a reset may have begun one this process has not heard of yet).
    local doc = redis.call('GET', ARGV[i + 1])
    local session = doc and string.match(doc, '^{"id":"([^"]*)"')
    if session then
      redis.call('XADD', ARGV[i + 2] .. session, 'MAXLEN', '~', ARGV[i + 3], '*', 'e', ARGV[i + 4], 'i', sid)
    end
  end
  return id
end
`;

/**
 * A callback's one script (docs/scale-out.md, "One callback, one script"): check, write, journal,
 * grade, in one atomic step.
 *
 * 1. Check: every watched key (generation, marker, player, transaction, round, settled round) still
 *    holds the value the decision was made on ('' for absent), the ids are forgotten or not as
 *    assumed, the required keys exist, an absent player is not listed and the players are as full as
 *    assumed (--tenant-players). If not, change nothing and answer what a read would
 *    (READ's reply): the failed check is the next attempt's read.
 * 2. Apply the writes (flat: each its number of words, then the words), trim the transaction index
 *    to the bound (forgetting the oldest ids), count the player's callbacks when asked (RedisShared.takeCount).
 * 3. Number and add the journal entry (its JSON is `{"id":<id>` and the tail the process built),
 *    trimmed to the journal's bounds, and add the grading event with that id.
 *
 * Answers {1, journal id (0: no entry)} or {0, values, forgotten flags, listed, required present}.
 * Whether anything is forgotten at all is read with the watched values (`<forgotten>:count`): the
 * lookups only run once something was (then in the buckets and in the set a wallet-sim before the
 * buckets wrote, which no wallet-sim wrote in this key layout).
 */
export const COMMIT = `${FORGET}${PLAYERS_FULL}${SEAL}
local i = 1
local w = tonumber(ARGV[i])
local values = redis.call('MGET', unpack(ARGV, i + 1, i + w + 1))
local any = values[w + 1] -- the forgotten ids' count (false: none)
values[w + 1] = nil
local same = true
for k = 1, w do
  if (values[k] or '') ~= ARGV[i + w + 1 + k] then same = false end
end
i = i + 2 * w + 2
local fkey, h = ARGV[i], tonumber(ARGV[i + 1])
local flags = {}
for k = 1, h do
  flags[k] = any and forgotten(fkey, ARGV[i + 1 + k]) or 0
  if flags[k] ~= tonumber(ARGV[i + 1 + h + k]) then same = false end
end
i = i + 2 + 2 * h
local players, user, r = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
local present = redis.call('EXISTS', unpack(ARGV, i + 3, i + 2 + r))
if present < r then same = false end
-- A player absent but listed: Redis lost the state (the process then says so).
local listed = 0
if not values[3] then listed = redis.call('SISMEMBER', players, user) end
if listed == 1 then same = false end
i = i + 3 + r
local isfull = full(players, values[3], ARGV[i])
if isfull ~= tonumber(ARGV[i + 1]) then same = false end
if not same then return {0, values, flags, listed, present, isfull} end
i = i + 2
local len -- the order list's, as RPUSH answers it
for _ = 1, tonumber(ARGV[i]) do
  local n = tonumber(ARGV[i + 1])
  local r = redis.call(unpack(ARGV, i + 2, i + 1 + n))
  if ARGV[i + 2] == 'RPUSH' then len = r end
  i = i + 1 + n
end
i = i + 1
if ARGV[i] == '1' then
  trim(ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], len)
  i = i + 5
else
  i = i + 1
end
if ARGV[i] == '1' then
  redis.call('HINCRBY', ARGV[i + 1], ARGV[i + 2], ARGV[i + 3])
  i = i + 4
else
  i = i + 1
end
return {1, seal(i)}
`;

/** What the commit script answers: committed with the journal id, or the current values (READ's reply). */
export type CommitReply = [1, number] | [0, ...ReadReply];

/** What a commit must find unchanged: the watched values ('' for absent), forgotten flags and players full (1 or 0) as decided on. */
export interface Expected {
  values: readonly (string | null)[];
  flags: readonly number[];
  full: number;
}

/**
 * What a commit writes: `ops`; `trim`: the transaction index's bound (or none); `count`: callbacks to
 * count (the hash, the player, how many).
 */
export interface Writes {
  ops: readonly Op[];
  trim?: Trim;
  count?: [string, string, number];
}

/** The commit script's ARGV. */
export function commitArgs(watch: Watch, expected: Expected, { ops, trim, count }: Writes, seal: Seal | undefined): (string | number)[] {
  const { watched, hashes, required } = watch;
  const args: (string | number)[] = [watched.length, ...watched, `${watch.forgottenKey}:count`];
  for (const v of expected.values) args.push(v ?? '');
  args.push(watch.forgottenKey, hashes.length, ...hashes, ...expected.flags);
  args.push(watch.playersKey, watch.user, required.length, ...required, watch.maxPlayers, expected.full);
  const merged = mergedSets(ops);
  args.push(merged.length);
  for (const op of merged) args.push(op.length, ...op);
  if (trim) args.push(1, ...trim);
  else args.push(0);
  if (count) args.push(1, ...count);
  else args.push(0);
  args.push(...sealArgs(seal));
  return args;
}

/** SEAL's ARGV: 0 (nothing to journal), or 1, the entry's keys, bounds and JSON tail, then its grading event (or 0). */
export function sealArgs(seal: Seal | undefined): (string | number)[] {
  if (!seal) return [0];
  const { entry, event } = seal;
  const args = [1, ...entry.keys, entry.capacity, entry.maxBytes, entry.chars, entry.tail];
  if (event) args.push(1, event.session, event.stream, event.maxLen, event.event);
  else args.push(0);
  return args;
}

/**
 * The writes with their plain SETs as one MSET, after the other writes (one command inside the
 * script instead of two to four: a callback's player, round, claim and transaction record), when no
 * other write touches their keys (so the order between them does not matter). Single Redis only:
 * on a cluster the keys of one MSET may lie in different slots.
 */
function mergedSets(ops: readonly Op[]): readonly Op[] {
  let sets = 0;
  for (const op of ops) if (op[0] === 'SET' && op.length === 3) sets++;
  if (sets < 2) return ops;
  const merged: Op = ['MSET'];
  const rest: Op[] = [];
  for (const op of ops) {
    if (op[0] === 'SET' && op.length === 3) merged.push(op[1]!, op[2]!);
    else rest.push(op);
  }
  // (a key of another write among them: their order matters, they stay apart)
  for (const op of rest) for (let k = 1; k < merged.length; k += 2) if (op[1] === merged[k]) return ops;
  rest.push(merged);
  return rest;
}
