import {
  forgottenRound,
  forgottenTxn,
  type PlayerRecord,
  roundKey,
  type RoundRecord,
  type TransactionRecord,
} from '../../ledger/change.js';
import type { Generation } from './generation.js';
import { isCluster } from './cluster.js';
import { admittedKey } from './keys.js';
import { type CasClient, hash64, idOf, type ReadReply, storedId, toPlayer, toRound } from './records.js';
import type { RecordKeys, View } from '../../ledger/store.js';

/** What one callback read: its view, and what the commit must find unchanged. */
export interface Read {
  view: View;
  /** The open round as read (the bets of a commit add to it). */
  round?: RoundRecord;
  /** The watched values as read (null: absent) and the forgotten flags: what the commit script checks. */
  values: (string | null)[];
  flags: number[];
  /** 1: the player is absent and the wallet holds as many players as it may (--tenant-players). */
  full: number;
}

/** The keys of one callback's records and what the read and the commit check with them. */
export interface Watch {
  /** The generation its keys are of. */
  gen: number;
  /** Generation, marker, player, transaction, its claim, and round and settled round when it has one. */
  watched: string[];
  /** The 64-bit hashes of the transaction id and of the round (when it has one): forgotten or not. */
  hashes: string[];
  forgottenKey: string;
  playersKey: string;
  /** The player's id as the players set holds it. */
  user: string;
  /** Keys that must exist (the active scenario, the generation): gone means Redis lost the state. */
  required: string[];
  /** The most players the wallet holds ('': unbounded): hosted mode's --tenant-players. */
  maxPlayers: string;
}

export function watchOf(at: Generation, keys: RecordKeys, maxPlayers = Number.POSITIVE_INFINITY): Watch {
  const key = at.keys(at.n);
  const { user_id, game_no } = keys;
  return {
    gen: at.n,
    watched: [
      at.genKey,
      at.markerKey,
      key.player(user_id),
      key.txn(user_id, keys.transaction_id),
      key.claim(keys.transaction_id),
      ...(game_no === undefined ? [] : [key.round(user_id, game_no), key.settled(user_id, game_no)]),
    ],
    hashes: [
      hash64(forgottenTxn(keys.transaction_id)),
      ...(game_no === undefined ? [] : [hash64(forgottenRound(roundKey(user_id, game_no)))]),
    ],
    forgottenKey: key.forgotten,
    playersKey: key.players,
    user: storedId(keys.user_id),
    required: [...at.vital, at.genKey],
    maxPlayers: Number.isFinite(maxPlayers) ? String(maxPlayers) : '',
  };
}

/**
 * The records one callback needs, in one round trip (the READ script): generation, marker, player,
 * transaction, round and settled round, whether the ids are forgotten, whether the player is listed
 * and the required keys exist. Undefined when another process reset the wallet meanwhile (`at` now
 * names the new generation: read again); throws when Redis lost the wallet's state.
 */
export async function readView(
  client: CasClient,
  at: Generation,
  watch: Watch,
  exchange: <T>(sent: Promise<T>) => Promise<T>,
): Promise<Read | undefined> {
  const { watched, hashes, required } = watch;
  if (isCluster(client)) return viewOf(at, watch, await exchange(clusterRead(client, watch)), true);
  const reply = await exchange(
    client.walletRead(
      watched.length + 2 + required.length,
      ...watched,
      watch.forgottenKey,
      watch.playersKey,
      ...required,
      watched.length,
      hashes.length,
      ...hashes,
      watch.user,
      watch.maxPlayers,
    ),
  );
  return viewOf(at, watch, reply, false);
}

/**
 * The view of what Redis answered (a read, or a commit whose check failed): undefined when another
 * process reset the wallet meanwhile; throws when Redis lost the wallet's state (on a cluster,
 * `cluster`, a player listed but gone is that player's loss only: Generation.lostPlayer). A read of
 * keys of an older generation than Redis's is undefined too, even when `at` already follows the new
 * one (another callback of this process saw the reset first): its values are of a ledger that is
 * gone, and a decision on them would be written there, acknowledged and lost.
 */
export function viewOf(
  at: Generation,
  watch: Watch,
  [values, forgotten, listed, present, full]: ReadReply,
  cluster: boolean,
): Read | undefined {
  if (at.follow(values[0]!, values[1]!) || values[0] !== String(watch.gen)) return undefined;
  if (!values[2] && listed === 1) throw at.lostPlayer(idOf(watch.user), cluster);
  if (present < watch.required.length) throw at.lost('no scenario key');
  return recordsView(values, forgotten, full, idOf(watch.user));
}

/**
 * The view of a callback's records as read or kept (the script checks them): watched values,
 * forgotten flags, players full. The transaction is the player's record of it; without one, a claim
 * of the id by another player (keys.ts) is that player's transaction (R3). The player's own claim
 * without a record was left by a callback that never applied (a crash between the two): the id is new.
 */
export function recordsView(values: (string | null)[], forgotten: number[], full: number, userId: string): Read {
  const [, , player, txn, claim, round, settled] = values;
  const roundRecord = round ? (JSON.parse(round) as RoundRecord) : undefined;
  const claimed = !txn && claim ? (JSON.parse(claim) as TransactionRecord) : undefined;
  const transaction = txn ? (JSON.parse(txn) as TransactionRecord) : claimed?.user_id !== userId ? claimed : undefined;
  return {
    view: {
      player: player ? toPlayer(JSON.parse(player) as PlayerRecord) : undefined,
      round: roundRecord && toRound(roundRecord),
      roundSettled: Boolean(settled),
      roundForgotten: forgotten[1] === 1,
      transaction,
      transactionForgotten: !transaction && forgotten[0] === 1,
      playersFull: full === 1,
    },
    round: roundRecord,
    values,
    flags: forgotten,
    full,
  };
}

/** The cluster's reads in the session's slot (cluster-scripts.ts): an absent player's (listed, players full), the forgotten flags. */
type SessionReads = {
  walletAbsent(players: string, admitted: string, user: string, max: string, admit: ''): Promise<[number, number]>;
  walletForgotten(forgotten: string, ...args: (string | number)[]): Promise<number[]>;
};

/**
 * The read of one callback on a cluster: the player's keys, the claim and the session's in parallel
 * (three slots, one round trip), answered as the single-Redis read script does (records.ts, READ).
 */
async function clusterRead(client: CasClient, watch: Watch): Promise<ReadReply> {
  const { watched, required } = watch;
  const [, , player, txn, claim, ...round] = watched;
  const session = client as CasClient & SessionReads;
  const [[p, t, ...r], c, [gen, marker], [listed, full], present, flags] = await Promise.all([
    client.mget(player!, txn!, ...round),
    client.get(claim!),
    client.mget(watched[0]!, watched[1]!),
    session.walletAbsent(watch.playersKey, admittedKey(watch.playersKey), watch.user, watch.maxPlayers, ''),
    client.exists(...required),
    session.walletForgotten(watch.forgottenKey, watch.hashes.length, ...watch.hashes),
  ]);
  return [[gen ?? null, marker ?? null, p ?? null, t ?? null, c, ...r.map((v) => v ?? null)], flags, listed, present, p ? 0 : full];
}
