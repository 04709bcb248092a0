import crypto from 'node:crypto';
import type { Redis } from 'ioredis';
import { money, sum, toJsonNumber } from '../../kernel/money.js';
import {
  type Change,
  forgottenRound,
  forgottenTxn,
  type PlayerRecord,
  roundKey,
  type RoundRecord,
  type TransactionRecord,
} from '../../ledger/change.js';
import type { Player, Round } from '../../ledger/state.js';
import { roundEffectOf } from '../../ledger/round-effects.js';
import { type GenKeys, storedId } from './keys.js';

export { idOf, storedId } from './keys.js';

/**
 * Forgotten ids (docs/design.md, "Bounded memory"), as compact as the local stores keep them: a 64-bit
 * hash (16 hex characters, computed by the caller: Redis has no SHA-256) goes to the bucket
 * `<forgotten>:<its first 4 hex characters>`, a string to which its other 6 bytes are appended raw.
 * 6 bytes per forgotten id (plus the string's spare room, at most as much again, and about 70 bytes
 * per bucket: 65,536 buckets at most), where a set member cost about 87. A lookup searches one
 * bucket (about 6 bytes × forgotten / 65,536) for the 6 bytes at a multiple of 6. The set
 * `<forgotten>` itself is where a wallet-sim before the buckets kept them: still read.
 * `<forgotten>:count` counts them (the ledger is complete while it is absent).
 */
export const FORGET = `
local function raw(h) return (string.sub(h, 5):gsub('..', function(c) return string.char(tonumber(c, 16)) end)) end
local function forget(key, h)
  redis.call('APPEND', key .. ':' .. string.sub(h, 1, 4), raw(h))
  redis.call('INCR', key .. ':count')
end
local function forgotten(key, h)
  if redis.call('SISMEMBER', key, h) == 1 then return 1 end
  local s = redis.call('GET', key .. ':' .. string.sub(h, 1, 4))
  if not s then return 0 end
  local r, from = raw(h), 1
  while true do
    local at = string.find(s, r, from, true)
    if not at then return 0 end
    if (at - 1) % 6 == 0 then return 1 end
    from = at + 1
  end
end
-- Keeps the newest 'bound' transactions listed in 'order', forgetting the oldest (and the rounds they settled).
local function trim(order, bound, forgot)
  local excess = redis.call('LLEN', order) - tonumber(bound)
  while excess > 0 do
    local e = cjson.decode(redis.call('LPOP', order))
    forget(forgot, e.th)
    redis.call('DEL', e.t)
    if e.c then redis.call('DEL', e.c) end
    if e.s and redis.call('DEL', e.s) == 1 then forget(forgot, e.sh) end
    excess = excess - 1
  end
end
`;

/**
 * The read of one callback, in one script call (docs/scale-out.md): KEYS are the `w` watched keys
 * (generation, marker, player, transaction, and round and settled round when it has one), the
 * forgotten-ids key, the players set, then the keys that must exist (the active scenario, the
 * generation). ARGV: w, the number of hashes h, the h hashes, the player's id as stored, the most
 * players the wallet holds ('': unbounded). Returns the watched values (nil: absent), whether each
 * hash is forgotten (1 or 0), whether the player is listed (1 or 0), how many of the required keys
 * exist, and whether an absent player would be one too many (1 or 0). It only reads.
 */
/**
 * Whether a callback of an absent player (`player` nil) would be one player too many: the players
 * set already holds `max` ('' : no bound). Hosted mode's --tenant-players, checked where the player
 * would be created, so that processes racing to add players never pass the bound together.
 */
export const PLAYERS_FULL = `
local function full(players, player, max)
  if player or max == '' then return 0 end
  if redis.call('SCARD', players) >= tonumber(max) then return 1 end
  return 0
end
`;

export const READ = `${FORGET}${PLAYERS_FULL}
local w, h = tonumber(ARGV[1]), tonumber(ARGV[2])
local values = redis.call('MGET', unpack(KEYS, 1, w))
local out = {}
for i = 1, h do out[i] = forgotten(KEYS[w + 1], ARGV[2 + i]) end
local listed = redis.call('SISMEMBER', KEYS[w + 2], ARGV[3 + h])
return {values, out, listed, redis.call('EXISTS', unpack(KEYS, w + 3)), full(KEYS[w + 2], values[3], ARGV[4 + h])}
`;

/**
 * Compare-and-set, the one piece of logic that runs in Redis: apply the writes only if every
 * expected key still holds the value the decision was made on (or is still absent). Then trim the
 * transaction index to `retain`, forgetting the oldest ids (FORGET above). The money rules are not
 * here: they stay in TypeScript (src/wallet/decide.ts), and this script only commits what they decided.
 *
 * ARGV (`casArgs`), flat so that nothing is decoded: the number of expected keys, then for each
 * its key, 1 and the value (or 0 and nothing: absent); the number of writes, then for each its
 * number of words and the words (`SET key value`…); then the order key, the bound and the
 * forgotten key, or nothing (no bound).
 */
export const CAS = `${FORGET}
local i = 2
for _ = 1, tonumber(ARGV[1]) do
  local v = redis.call('GET', ARGV[i])
  if ARGV[i + 1] == '0' then
    if v then return 0 end
    i = i + 2
  else
    if v ~= ARGV[i + 2] then return 0 end
    i = i + 3
  end
end
local ops = tonumber(ARGV[i])
i = i + 1
for _ = 1, ops do
  local n = tonumber(ARGV[i])
  redis.call(unpack(ARGV, i + 1, i + n))
  i = i + n + 1
end
if ARGV[i] then trim(ARGV[i], ARGV[i + 1], ARGV[i + 2]) end
return 1
`;

/** The CAS script's ARGV for a document. */
export function casArgs(doc: CasDocument): (string | number)[] {
  const args: (string | number)[] = [doc.expect.length];
  for (const [key, value] of doc.expect) {
    if (value === false) args.push(key, 0);
    else args.push(key, 1, value);
  }
  args.push(doc.ops.length);
  for (const op of doc.ops) args.push(op.length, ...op);
  if (doc.trim) args.push(...doc.trim);
  return args;
}

export type Op = [string, ...string[]];
export interface CasDocument {
  expect: [string, string | false][];
  ops: Op[];
  trim?: [string, number, string];
}

/** What the READ script answers: watched values, forgotten flags, listed, required keys present, players full. */
export type ReadReply = [(string | null)[], number[], number, number, number];

/** A Redis client with the store's scripts defined on it: the read and the compare-and-set. */
export type CasClient = Redis & {
  walletCas(...args: (string | number)[]): Promise<number>;
  walletRead(numberOfKeys: number, ...args: (string | number)[]): Promise<ReadReply>;
};

/**
 * The Redis writes of change records, decided on `round` (the open round as read). `key` names a
 * record's key in the current generation; `indexed`: transactions are listed in `order` for
 * --retain-transactions.
 */
export function recordOps(key: GenKeys, changes: readonly Change[], round: RoundRecord | undefined, indexed: boolean): Op[] {
  const ops: Op[] = [];
  let open = round;
  for (const c of changes) {
    switch (c.op) {
      case 'player': {
        const { op: _op, ...record } = c;
        ops.push(['SET', key.player(c.user_id), JSON.stringify(record)], ['SADD', key.players, storedId(c.user_id)]);
        break;
      }
      case 'round': {
        const { op: _op, ...record } = c;
        if (c.settled) ops.push(['DEL', key.round(c.user_id, c.game_no)], ['SET', key.settled(c.user_id, c.game_no), '1']);
        else ops.push(['SET', key.round(c.user_id, c.game_no), JSON.stringify(record)]);
        open = c.settled ? undefined : record;
        break;
      }
      case 'bets': {
        const base: RoundRecord = open ?? {
          user_id: c.user_id,
          game_no: c.game_no,
          currency: c.currency,
          stake: '0',
          bets: [],
          settled: false,
        };
        const stake = money(base.stake).plus(sum(c.bets.map(([, , amount]) => money(amount))));
        open = { ...base, stake: toJsonNumber(stake), bets: [...base.bets, ...c.bets] };
        ops.push(['SET', key.round(c.user_id, c.game_no), JSON.stringify(open)]);
        break;
      }
      case 'txn': {
        const { op: _op, ...record } = c;
        const txnKey = key.txn(c.user_id, c.transaction_id);
        const claimKey = key.claim(c.transaction_id);
        // What forgetting this transaction later takes with it: its id, its claim, and the round it settled.
        const settles = roundEffectOf(c.event_type) === 'settles' && c.game_no !== undefined;
        const entry = {
          t: txnKey,
          c: claimKey,
          th: hash64(forgottenTxn(c.transaction_id)),
          ...(settles && { s: key.settled(c.user_id, c.game_no!), sh: hash64(forgottenRound(roundKey(c.user_id, c.game_no!))) }),
        };
        ops.push(['SET', claimKey, claimOf(c)], ['SET', txnKey, JSON.stringify(record)]);
        if (indexed) ops.push(['RPUSH', key.order, JSON.stringify(entry)]);
        break;
      }
      case 'forgotten':
      case 'clear':
        throw new Error(`a ${c.op} record is not decided per callback`);
    }
  }
  return ops;
}

/**
 * A transaction_id's claim (keys.ts): the player and body it was applied to, as a transaction record
 * (a callback of another player, or of another body, finds it and is refused R3).
 */
export const claimOf = (t: TransactionRecord): string =>
  JSON.stringify({ transaction_id: t.transaction_id, user_id: t.user_id, event_type: t.event_type, fingerprint: t.fingerprint });

export const toPlayer = (p: PlayerRecord): Player => ({ user_id: p.user_id, balance: money(p.balance), currency: p.currency });

export const toRound = (r: RoundRecord): Round => ({
  user_id: r.user_id,
  game_no: r.game_no,
  currency: r.currency,
  stake: money(r.stake),
  bets: new Map(r.bets.map(([index, type, amount]) => [index, { bet_type: type, bet_amount: money(amount) }])),
  settled: r.settled,
});

/** The first 8 bytes of the key's SHA-256, in hex: what the forgotten set holds (as the local stores do). */
export const hash64 = (key: string): string =>
  typeof crypto.hash === 'function'
    ? crypto.hash('sha256', key, 'hex').slice(0, 16)
    : crypto.createHash('sha256').update(key).digest().subarray(0, 8).toString('hex');

/** A literal for SCAN MATCH: the prefix may hold glob characters. */
export const escapeGlob = (s: string) => s.replace(/[*?[\]\\]/g, '\\$&');
