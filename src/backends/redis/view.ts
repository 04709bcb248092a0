import {
  forgottenRound,
  forgottenTxn,
  type PlayerRecord,
  roundKey,
  type RoundRecord,
  type TransactionRecord,
} from '../../ledger/change.js';
import type { Generation } from './generation.js';
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
  /** Generation, marker, player, transaction, and round and settled round when it has one. */
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
  const gen = at.n;
  const roundId = keys.game_no === undefined ? undefined : roundKey(keys.user_id, keys.game_no);
  return {
    watched: [
      at.genKey,
      at.markerKey,
      at.key(gen, 'player', keys.user_id),
      at.key(gen, 'txn', keys.transaction_id),
      ...(roundId ? [at.key(gen, 'round', roundId), at.key(gen, 'settled', roundId)] : []),
    ],
    hashes: [hash64(forgottenTxn(keys.transaction_id)), ...(roundId ? [hash64(forgottenRound(roundId))] : [])],
    forgottenKey: at.key(gen, 'forgotten'),
    playersKey: at.key(gen, 'players'),
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
  return viewOf(at, watch, reply);
}

/**
 * The view of what Redis answered (a read, or a commit whose check failed): undefined when another
 * process reset the wallet meanwhile; throws when Redis lost the wallet's state.
 */
export function viewOf(at: Generation, watch: Watch, [values, forgotten, listed, present, full]: ReadReply): Read | undefined {
  if (at.follow(values[0]!, values[1]!)) return undefined;
  if (!values[2] && listed === 1) throw at.lost(`player ${JSON.stringify(idOf(watch.user))} listed but gone`);
  if (present < watch.required.length) throw at.lost('no scenario key');
  return recordsView(values, forgotten, full);
}

/** The view of a callback's records as read or kept (the script checks them): watched values, forgotten flags, players full. */
export function recordsView(values: (string | null)[], forgotten: number[], full: number): Read {
  const [, , player, txn, round, settled] = values;
  const roundRecord = round ? (JSON.parse(round) as RoundRecord) : undefined;
  return {
    view: {
      player: player ? toPlayer(JSON.parse(player) as PlayerRecord) : undefined,
      round: roundRecord && toRound(roundRecord),
      roundSettled: Boolean(settled),
      roundForgotten: forgotten[1] === 1,
      transaction: txn ? (JSON.parse(txn) as TransactionRecord) : undefined,
      transactionForgotten: !txn && forgotten[0] === 1,
      playersFull: full === 1,
    },
    round: roundRecord,
    values,
    flags: forgotten,
    full,
  };
}
