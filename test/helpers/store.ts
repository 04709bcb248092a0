// Shared by the file store tests: a data path in a temp folder removed after the test, and records.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Change } from '../../src/store/change.js';

type Test = { teardown: (fn: () => unknown) => void };

export async function tempData(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wallet-sim-store-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'wallet.json');
}

export const player = (user_id: string, balance: string): Change => ({ op: 'player', user_id, balance, currency: 'USD' });
export const txn = (transaction_id: string, user_id = 'p1'): Change => ({
  op: 'txn',
  transaction_id,
  user_id,
  event_type: 'bet',
  fingerprint: 'f',
});
