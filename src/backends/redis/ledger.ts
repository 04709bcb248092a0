import { type Ledger, LEDGER_BATCH, LedgerCut, type LedgerEntry, ledgerEntry } from '../../ledger/ledger-entry.js';
import { roundKey, type TransactionRecord } from '../../ledger/change.js';
import { roundEffectOf } from '../../ledger/round-effects.js';
import type { RedisStore } from './redis-store.js';
import { getMany } from './cluster.js';
import { orderedTxnKey } from './records.js';

/**
 * The ledger of a Redis store: the `order` list names every retained transaction, oldest first
 * (src/backends/redis/redis-store.ts); its records are read a batch at a time, and each bet's round is looked up
 * in the same batch (settled or open). Reads only: callbacks keep flowing while it streams.
 */
export async function readRedisLedger(store: RedisStore, userId?: string): Promise<Ledger> {
  const { client } = store;
  const gen = Number(await client.get(store.genKey));
  const key = store.keysOf(gen);
  const order = key.order;
  const records = async (from: number, to: number): Promise<TransactionRecord[]> => {
    const entries = await client.lrange(order, from, to);
    if (!entries.length) return [];
    const raws = await getMany(
      client,
      entries.map((e) => orderedTxnKey(key, e)),
    );
    return raws.flatMap((raw) => (raw ? [JSON.parse(raw) as TransactionRecord] : []));
  };
  // Nothing forgotten in either form: the buckets' count, or the set an older wallet-sim kept.
  const [count, members] = await Promise.all([client.get(`${key.forgotten}:count`), client.scard(key.forgotten)]);
  const complete = !Number(count) && members === 0;
  let completeFrom: string | undefined;
  if (!complete) {
    const oldest = (await records(0, 99)).find((t) => t.applied_at !== undefined)?.applied_at;
    completeFrom = new Date(oldest ?? Date.now()).toISOString();
  }
  // A reset starts a new generation and then deletes the old one's keys: read on only while it is still the current one.
  const check = async () => {
    if ((await client.get(store.genKey)) !== String(gen)) throw new LedgerCut();
  };
  async function* batches(): AsyncGenerator<LedgerEntry[]> {
    for (let from = 0; ; from += LEDGER_BATCH) {
      const txns = (await records(from, from + LEDGER_BATCH - 1)).filter((t) => userId === undefined || t.user_id === userId);
      const ended = !txns.length && (await client.llen(order)) <= from;
      await check();
      if (ended) return;
      // Which of these bets' rounds are settled: one MGET for the batch.
      const bets = txns.filter((t) => roundEffectOf(t.event_type) === 'opens' && t.game_no !== undefined);
      const flags = await getMany(
        client,
        bets.map((t) => key.settled(t.user_id, t.game_no!)),
      );
      const settledRounds = new Set(bets.flatMap((t, i) => (flags[i] ? [roundKey(t.user_id, t.game_no!)] : [])));
      const rows = txns.flatMap((t) => ledgerEntry(t, (k) => settledRounds.has(k)) ?? []);
      if (rows.length) yield rows;
    }
  }
  return { complete, completeFrom, batches: batches() };
}
