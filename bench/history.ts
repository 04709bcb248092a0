import { join } from 'node:path';
import { SnapshotFile } from '../src/backends/file/snapshot-file.js';
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION } from '../src/backends/file/snapshot-format.js';
import type { Change } from '../src/ledger/state.js';
import { player, PLAYERS } from './traffic.js';

/** A data file holding `txns` prior transactions (half bets, half settlements), written directly. */
export async function historyFile(dir: string, txns: number): Promise<string> {
  const data = join(dir, `history-${txns}.json`);
  const changes: Change[] = [];
  for (let i = 0; i < PLAYERS; i++) changes.push({ op: 'player', user_id: player(i), balance: '1000000', currency: 'USD' });
  for (let i = 0; i < txns / 2; i++) {
    const user_id = player(i);
    const game_no = `h${i}`;
    changes.push({
      op: 'round',
      user_id,
      game_no,
      currency: 'USD',
      stake: '2.5',
      bets: [
        ['1', 'P', '1.5'],
        ['2', 'T', '1'],
      ],
      settled: true,
    });
  }
  for (let i = 0; i < txns; i++) {
    changes.push({
      op: 'txn',
      transaction_id: `hist-${i}`,
      user_id: player(i >> 1),
      event_type: i % 2 ? 'bet_result' : 'bet',
      fingerprint: `fp${i.toString(36).padStart(40, '0')}`,
    });
  }
  const file = new SnapshotFile(data);
  await file.write({
    header: {
      format: SNAPSHOT_FORMAT,
      version: SNAPSHOT_VERSION,
      log_seq: 0,
      written_at: new Date().toISOString(),
      records: changes.length,
    },
    changes,
  });
  console.log(`history: ${txns.toLocaleString('en')} prior transactions → ${(file.bytes / 1e6).toFixed(1)} MB snapshot`);
  return data;
}
