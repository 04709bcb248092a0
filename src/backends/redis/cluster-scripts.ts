import { SEAL } from './commit.js';
import { FORGET, UNLISTED } from './records.js';

/**
 * The forgotten flags of ARGV[from] on: h (its count), the h hashes, the h flags the decision
 * assumed. `flags_of(fkey, from)` answers the flags now (FORGET's lookup; nothing is looked up until
 * something was forgotten) and whether they are as assumed. The cluster's read, claim and session
 * steps check them in the session's slot, where ids are forgotten.
 */
export const FLAGS = `
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
 *    applied), the generation and marker as decided on, and the id and round forgotten or not as
 *    decided on (FLAGS: the claim is where an id's use is decided, in the slot where ids are
 *    forgotten, so a retry racing the bound is never applied again); then set to this player and
 *    body, marked unlisted (records.ts, UNLISTED; a claim listed already stays). Another claim
 *    answers as a failed check: the callback is decided again on it (another player's claim: R3).
 * 2. the player's script (the player's slot): its records as decided on; then its writes.
 * 3. the session's (the session's slot): the generation and marker as decided on, the required
 *    keys present and the forgotten flags as decided on; then the session's writes (the players
 *    set, the count) and, while the claim is still marked unlisted, the transaction's listing (the
 *    applied-transaction list, the mark taken off) and --retain-transactions' bound: the oldest transactions
 *    are forgotten and their claims deleted here, and their records and settled rounds (in the
 *    players' slots) are deleted by the process after the reply (FORGET's trim, `apart`). After
 *    a reset (another process's, not seen yet) this check fails: what step 2 wrote went to the
 *    ledger the reset ended, which nothing reads any more, and the callback is decided again on the
 *    new ledger, as after any failed check. A lost state (no generation or scenario key) is R1.
 *    A step 3 that never ran (its process died, or got no reply) is run by the resend, which
 *    replays from the player's record and finds the claim still unlisted (records.ts, `unlisted`).
 *
 * The journal entry and the grading event are added by step 3, in the session's slot where they live:
 * a callback answered at once is journalled with its commit, as on a single Redis.
 */
export const CLAIM = `${FORGET}${FLAGS}
local UNLISTED = '${UNLISTED}'
local v = redis.call('MGET', KEYS[1], KEYS[2], KEYS[3])
if (v[1] or '') ~= ARGV[1] or (v[2] or '') ~= ARGV[3] or (v[3] or '') ~= ARGV[4] then return {0, v} end
local flags, same = flags_of(KEYS[4], 5)
if not same then return {0, v, flags} end
-- (a claim listed already stays as it is: its transaction was applied, step 2 finds its record)
if v[1] and string.sub(v[1], 1, #UNLISTED) ~= UNLISTED then return {1, v[1]} end
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
 * KEYS: generation, marker, the required keys; ARGV: the expected generation and marker, the claim
 * decided on when no claim step ran (its key and value, '' absent; the key '' when one did: a
 * refusal decided on a player's kept records assumed the id unclaimed, as the single-Redis script
 * checks it), the forgotten flags as assumed (the forgotten key, then FLAGS'), the writes (flat), the claim whose
 * transaction is to be listed ('' none) and the listing's writes (flat: `order`'s RPUSH), the trim
 * (1, the order list, bound, forgotten key, generation base; or 0), then the journal entry and
 * grading event (SEAL's). The listing and the trim happen only while the claim is marked unlisted
 * (records.ts, UNLISTED), and take the mark off: a transaction is listed once, whichever of its
 * callbacks (the one that applied it, or a resend after its step 3 failed) gets there first.
 * Answers {1, journal id, the players' keys the trim left to delete} or {0, …}.
 */
export const SESSION_COMMIT = `${FORGET}${FLAGS}${SEAL}
local UNLISTED = '${UNLISTED}'
local values = redis.call('MGET', KEYS[1], KEYS[2])
local present = redis.call('EXISTS', unpack(KEYS, 3))
if (values[1] or '') ~= ARGV[1] or (values[2] or '') ~= ARGV[2] or present < #KEYS - 2 then return {0, values, present} end
if ARGV[3] ~= '' then
  local claimed = redis.call('GET', ARGV[3])
  if (claimed or '') ~= ARGV[4] then return {0, values, present, false, claimed or false} end
end
local flags, same = flags_of(ARGV[5], 6)
if not same then return {0, values, present, flags} end
local i = 7 + 2 * tonumber(ARGV[6])
for _ = 1, tonumber(ARGV[i]) do
  local n = tonumber(ARGV[i + 1])
  redis.call(unpack(ARGV, i + 2, i + 1 + n))
  i = i + 1 + n
end
i = i + 1
-- The transaction listed once: only while its claim is still marked unlisted (the mark goes with it).
local listing, claim = false, ARGV[i]
if claim ~= '' then
  local c = redis.call('GET', claim)
  if c and string.sub(c, 1, #UNLISTED) == UNLISTED then
    -- (the attempt goes with the mark: a listed claim is kept as long as its transaction)
    redis.call('SET', claim, '{' .. (string.gsub(string.sub(c, #UNLISTED + 1), '^"attempt":"[^"]*",', '', 1)))
    listing = true
  end
end
i = i + 1
for _ = 1, tonumber(ARGV[i]) do
  local n = tonumber(ARGV[i + 1])
  if listing then redis.call(unpack(ARGV, i + 2, i + 1 + n)) end
  i = i + 1 + n
end
i = i + 1
local apart = {}
if ARGV[i] == '1' then
  -- (the players' keys answered, not deleted here)
  if listing then trim(ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], nil, apart) end
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
 * its admissions (`admittedKey`: a hash, each player's count of callbacks admitting it); ARGV: the
 * player's id as stored, the most players ('': no bound), '1' to admit it. A player is admitted
 * (counted) here before step 2 creates it and listed by step 3, which removes its admission:
 * processes racing to add players never pass the bound together. The count is per attempt so that
 * an attempt that creates nothing gives back only its own admission (GIVE_BACK) while another
 * process's, creating the same player, still holds its place. An admission left by a crash between
 * the steps still counts, until the player's resend (which finds it) or a reset: the bound is never
 * passed, a place may be held.
 */
export const ABSENT_PLAYER = `
local players, admitted, user, max = KEYS[1], KEYS[2], ARGV[1], ARGV[2]
if redis.call('SISMEMBER', players, user) == 1 then return {1, 0} end
if max == '' then return {0, 0} end
if redis.call('HEXISTS', admitted, user) == 0 and redis.call('SCARD', players) + redis.call('HLEN', admitted) >= tonumber(max) then
  return {0, 1}
end
if ARGV[3] == '1' then redis.call('HINCRBY', admitted, user, 1) end
return {0, 0}
`;

/**
 * What an attempt set before a step that failed, given back (the callback is decided again, and
 * may now refuse): KEYS the transaction_id's claim and the admissions; ARGV the claim as this
 * attempt set it ('': none), the claim it replaced ('': none), and the player admitted ('': none).
 * The claim goes back to what it replaced only while it is still this attempt's very value (another
 * process racing the same resend sets its own attempt's); what it replaced may be the claim of a
 * callback that applied the transaction and never listed it, which must stay. An attempt that finds
 * its claim replaced already withdraws it (KEYS[3], `withdrawn:<id>` beside the claims, never a
 * claim's name: its attempt → what it replaced, for
 * ten minutes), so the one that replaced it, giving back in turn, restores what the withdrawn one
 * replaced instead (and so on back), never a claim no attempt holds. The admission: one less, none
 * below zero (the player's listing may have removed them all). Answers {the claim now}.
 */
export const GIVE_BACK = `
local claim, withdrawn = KEYS[1], KEYS[3]
local function attempt(value) return string.match(value, '^${UNLISTED}"attempt":"([^"]*)"') end
if ARGV[1] ~= '' then
  if redis.call('GET', claim) == ARGV[1] then
    local to = ARGV[2]
    for _ = 1, 100 do
      local a = to ~= '' and attempt(to)
      local before = a and redis.call('HGET', withdrawn, a)
      if not before then break end
      to = before
    end
    if to == '' then redis.call('DEL', claim) else redis.call('SET', claim, to) end
  else
    redis.call('HSET', withdrawn, attempt(ARGV[1]), ARGV[2])
    redis.call('PEXPIRE', withdrawn, 600000)
  end
end
if ARGV[3] ~= '' and redis.call('HEXISTS', KEYS[2], ARGV[3]) == 1 then
  if redis.call('HINCRBY', KEYS[2], ARGV[3], -1) <= 0 then redis.call('HDEL', KEYS[2], ARGV[3]) end
end
return {redis.call('GET', claim)}
`;

export { admittedKey } from './keys.js';
