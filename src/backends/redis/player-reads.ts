import type { PlayerRecord } from '../../ledger/change.js';
import type { Player } from '../../ledger/state.js';
import { MAX_ATTEMPTS } from './callback-commit.js';
import { getMany } from './cluster.js';
import type { Generation } from './generation.js';
import { type CasClient, idOf, storedId, toPlayer } from './records.js';

/** What the admin API's reads of players need from the store. */
export interface PlayerReads {
  client: CasClient;
  at: Generation;
  cluster: boolean;
  exchange: <T>(sent: Promise<T>) => Promise<T>;
  /** Follows a reset; throws when Redis lost the wallet's state (RedisStore.refreshGeneration). */
  refresh(): Promise<void>;
}

/**
 * A player, or undefined when there is none. One listed in `players` whose record is gone was lost
 * by Redis (its master restarted empty, evicted, flushed): refused as its callbacks are (R1 there,
 * 503 here), never answered "absent", which would invite creating it afresh, and the resend of a bet
 * applied before the loss would then be debited again.
 */
export async function readPlayer(r: PlayerReads, userId: string): Promise<Player | undefined> {
  for (let attempt = 1; ; attempt++) {
    await r.refresh();
    const { n } = r.at;
    const key = r.at.keys(n);
    const raw = await r.exchange(r.client.get(key.player(userId)));
    if (raw) return toPlayer(JSON.parse(raw) as PlayerRecord);
    if (!(await r.exchange(r.client.sismember(key.players, storedId(userId))))) return undefined;
    await lostUnlessReset(r, n, userId, attempt);
  }
}

/** Every listed player, by user_id; one listed whose record is gone is refused, as in `readPlayer`. */
export async function readPlayers(r: PlayerReads): Promise<Player[]> {
  for (let attempt = 1; ; attempt++) {
    await r.refresh();
    const { n } = r.at;
    const key = r.at.keys(n);
    const ids = (await r.exchange(r.client.smembers(key.players))).map(idOf);
    const players: Player[] = [];
    let gone: string | undefined;
    for (let i = 0; i < ids.length && gone === undefined; i += 1000) {
      const batch = ids.slice(i, i + 1000);
      const raws = await r.exchange(
        getMany(
          r.client,
          batch.map((id) => key.player(id)),
        ),
      );
      raws.forEach((raw, j) => (raw ? players.push(toPlayer(JSON.parse(raw) as PlayerRecord)) : (gone ??= batch[j])));
    }
    if (gone === undefined) return players.sort((a, b) => (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0));
    await lostUnlessReset(r, n, gone, attempt);
  }
}

/** `userId` is listed in generation `gen` but its record is gone: lost, unless a reset moved the wallet on meanwhile (then read again). */
async function lostUnlessReset(r: PlayerReads, gen: number, userId: string, attempt: number): Promise<void> {
  await r.refresh();
  if (r.at.n === gen || attempt >= MAX_ATTEMPTS) throw r.at.lostPlayer(userId, r.cluster);
}
