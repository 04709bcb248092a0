import crypto from 'node:crypto';
import type { Redis } from 'ioredis';
import { money, sum, toJsonNumber } from '../../kernel/money.js';
import { lastTwo } from '../../kernel/last-two.js';
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
import { type GenKeys, idOf, storedId } from './keys.js';

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
-- Keeps the newest 'bound' transactions listed in 'order' ('len' of them now, when known), forgetting
-- the oldest (and the rounds they settled). An entry (orderEntry) names them by stored ids in
-- generation 'base'; one a wallet-sim before 29 Nov 2026 (session 20) listed names its keys in full.
-- With 'apart' (a Redis Cluster, where the players' keys lie in other slots), the records and settled
-- rounds are appended to it for the process to delete, and each settled round listed is forgotten.
local function trim(order, bound, forgot, base, len, apart)
  local excess = (len or redis.call('LLEN', order)) - tonumber(bound)
  local claims = string.sub(order, 1, -6) .. 'claim:'
  while excess > 0 do
    local e = cjson.decode(redis.call('LPOP', order))
    local txn, claim, settled, th, sh
    if e.t then
      txn, claim, settled, th, sh = e.t, e.c, e.s, e.th, e.sh
    else
      local own = base .. '{p:' .. e[2] .. '}:'
      txn, claim, th, sh = own .. 'txn:' .. e[3], claims .. e[3], e[1], e[4]
      if e[4] then settled = own .. 'settled:' .. e[5] end
    end
    forget(forgot, th)
    if apart then
      apart[#apart + 1] = txn
      if claim then redis.call('DEL', claim) end
      if settled then forget(forgot, sh); apart[#apart + 1] = settled end
    else
      if claim then redis.call('DEL', txn, claim) else redis.call('DEL', txn) end
      if settled and redis.call('DEL', settled) == 1 then forget(forgot, sh) end
    end
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
 * number of words and the words (`SET key value`…); then the order key, the bound, the
 * forgotten key and the generation's base, or nothing (no bound).
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
if ARGV[i] then trim(ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]) end
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
  trim?: Trim;
}

/** The transaction index's bound: the order list, the bound, the forgotten key, the generation's base (GenKeys.base). */
export type Trim = [order: string, bound: number, forgotten: string, base: string];

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
 * --retain-transactions; `listed`: the player is in the players set already (it was when its record
 * was written: the commit checks that record unchanged), so a new balance does not add it again.
 */
export function recordOps(
  key: GenKeys,
  changes: readonly Change[],
  round: RoundRecord | undefined,
  indexed: boolean,
  listed = false,
): Op[] {
  const ops: Op[] = [];
  let open = round;
  for (const c of changes) {
    switch (c.op) {
      case 'player': {
        const { op: _op, ...record } = c;
        ops.push(['SET', key.player(c.user_id), JSON.stringify(record)]);
        if (!listed) ops.push(['SADD', key.players, storedId(c.user_id)]);
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
        ops.push(['SET', key.claim(c.transaction_id), claimOf(c)], ['SET', key.txn(c.user_id, c.transaction_id), JSON.stringify(record)]);
        if (indexed) ops.push(['RPUSH', key.order, orderEntry(c)]);
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
 * A transaction's entry in `order`: what forgetting it later takes with it (FORGET's trim), by
 * stored ids, the keys left to the script: its id's hash, its player and id (the record and the
 * claim), and for a transaction that settled a round, the round's hash and game_no (its settled key).
 * JSON, as its ids may hold any character: [hash, user, id] or [hash, user, id, round hash, game_no].
 */
export function orderEntry(t: TransactionRecord): string {
  const entry = [hash64(forgottenTxn(t.transaction_id)), storedId(t.user_id), storedId(t.transaction_id)];
  if (roundEffectOf(t.event_type) === 'settles' && t.game_no !== undefined)
    entry.push(hash64(forgottenRound(roundKey(t.user_id, t.game_no))), storedId(t.game_no));
  return JSON.stringify(entry);
}

/** The transaction record an `order` entry names, in generation `key` (or an older wallet-sim's entry: its key in full). */
export function orderedTxnKey(key: GenKeys, entry: string): string {
  const e = JSON.parse(entry) as { t: string } | string[];
  return Array.isArray(e) ? key.txn(idOf(e[1]!), idOf(e[2]!)) : e.t;
}

/**
 * A transaction_id's claim (keys.ts): the player and body it was applied to, as a transaction record
 * (a callback of another player, or of another body, finds it and is refused R3).
 */
export const claimOf = (t: TransactionRecord): string =>
  JSON.stringify({ transaction_id: t.transaction_id, user_id: t.user_id, event_type: t.event_type, fingerprint: t.fingerprint });

/**
 * On a cluster a claim is set (step 1) before its transaction is listed in `order` (step 3, in the
 * claim's slot): until then it starts with this mark, which step 3 takes off in the same script as it
 * lists the transaction (cluster-scripts.ts). A claim still marked beside the player's record of the
 * transaction: its step 3 never ran (the process died, or got no reply), and the resend's lists it.
 * A claim without the mark (a single Redis's, or one listed already) is never marked again. It names
 * its `attempt` (unique; gone with the mark): a step 1 whose step 2 lost a race gives back its own only.
 */
export const UNLISTED = '{"unlisted":1,';
export const unlistedClaim = (claim: string, attempt: string): string =>
  `${UNLISTED}"attempt":${JSON.stringify(attempt)},${claim.slice(1)}`;

/** Whether a callback's watched values (view.ts) show its transaction applied to the player and not listed yet (a cluster's). */
export const unlisted = (values: readonly (string | null)[]): boolean => Boolean(values[3] && values[4]?.startsWith(UNLISTED));

export const toPlayer = (p: PlayerRecord): Player => ({ user_id: p.user_id, balance: money(p.balance), currency: p.currency });

export const toRound = (r: RoundRecord): Round => ({
  user_id: r.user_id,
  game_no: r.game_no,
  currency: r.currency,
  stake: money(r.stake),
  bets: new Map(r.bets.map(([index, type, amount]) => [index, { bet_type: type, bet_amount: money(amount) }])),
  settled: r.settled,
});

/**
 * The first 8 bytes of the key's SHA-256, in hex: what the forgotten set holds (as the local stores
 * do). A callback hashes its transaction twice, its read's check then its index entry: the last two
 * are kept (lastTwo).
 */
export const hash64 = lastTwo((key: string): string =>
  (typeof crypto.hash === 'function' ? crypto.hash('sha256', key, 'hex') : crypto.createHash('sha256').update(key).digest('hex')).slice(
    0,
    16,
  ),
);

/** A literal for SCAN MATCH: the prefix may hold glob characters. */
export const escapeGlob = (s: string) => s.replace(/[*?[\]\\]/g, '\\$&');
