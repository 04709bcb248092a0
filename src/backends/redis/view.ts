import {
  forgottenRound,
  forgottenTxn,
  type PlayerRecord,
  roundKey,
  type RoundRecord,
  type TransactionRecord,
} from '../../ledger/change.js';
import type { Generation } from './generation.js';
import { type CasClient, hash64, storedId, toPlayer, toRound } from './records.js';
import type { RecordKeys, View } from '../../ledger/store.js';

/** What one callback read: its view, and what the commit must find unchanged. */
export interface Read {
  view: View;
  /** The keys read and their values (null: absent), for the compare-and-set. */
  expect: [string, string | false][];
  /** The open round as read (the bets of a commit add to it). */
  round?: RoundRecord;
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
  keys: RecordKeys,
  exchange: <T>(sent: Promise<T>) => Promise<T>,
): Promise<Read | undefined> {
  const gen = at.n;
  const roundId = keys.game_no === undefined ? undefined : roundKey(keys.user_id, keys.game_no);
  const watched = [
    at.genKey,
    at.markerKey,
    at.key(gen, 'player', keys.user_id),
    at.key(gen, 'txn', keys.transaction_id),
    ...(roundId ? [at.key(gen, 'round', roundId), at.key(gen, 'settled', roundId)] : []),
  ];
  const hashes = [hash64(forgottenTxn(keys.transaction_id)), ...(roundId ? [hash64(forgottenRound(roundId))] : [])];
  const required = [...at.vital, at.genKey];
  const [values, forgotten, listed, present] = await exchange(
    client.walletRead(
      watched.length + 2 + required.length,
      ...watched,
      at.key(gen, 'forgotten'),
      at.key(gen, 'players'),
      ...required,
      watched.length,
      hashes.length,
      ...hashes,
      storedId(keys.user_id),
    ),
  );
  if (at.follow(values[0]!, values[1]!)) return undefined;
  const [, , player, txn, round, settled] = values;
  if (!player && listed === 1) throw at.lost(`player ${JSON.stringify(keys.user_id)} listed but gone`);
  if (present < required.length) throw at.lost('no scenario key');
  const roundRecord = round ? (JSON.parse(round) as RoundRecord) : undefined;
  return {
    view: {
      player: player ? toPlayer(JSON.parse(player) as PlayerRecord) : undefined,
      round: roundRecord && toRound(roundRecord),
      roundSettled: Boolean(settled),
      roundForgotten: forgotten[1] === 1,
      transaction: txn ? (JSON.parse(txn) as TransactionRecord) : undefined,
      transactionForgotten: !txn && forgotten[0] === 1,
    },
    expect: watched.map((key, i) => [key, values[i] ?? false]),
    round: roundRecord,
  };
}
