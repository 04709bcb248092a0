// Shared by the file store tests: a data path in a temp folder removed after the test, records,
// and a file store opened as the wallet opens it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Change } from '../../src/ledger/change.js';
import { FilePersistence, type FilePersistenceOptions } from '../../src/backends/file/file-persistence.js';
import { LocalStore } from '../../src/ledger/local-store.js';
import { WalletState } from '../../src/ledger/state.js';

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

/** A file store as the wallet opens it: its records folded into a WalletState, which its snapshots copy. */
export interface OpenedFile {
  file: FilePersistence;
  /** Commits apply here first, then go to `file`. */
  store: LocalStore;
  /** The state as records (WalletState.changes()). */
  records: () => Change[];
}

export async function openFile(data: string, options?: FilePersistenceOptions, retainTransactions?: number): Promise<OpenedFile> {
  const file = await FilePersistence.open(data, options);
  const store = new LocalStore('file', new WalletState(retainTransactions), file);
  await store.load();
  return { file, store, records: () => [...store.state.changes()] };
}

/** One bet added to a round (opened by the first). */
export const bets = (game_no: string, index: string, amount: string, user_id = 'p1'): Change => ({
  op: 'bets',
  user_id,
  game_no,
  currency: 'USD',
  bets: [[index, 'P', amount]],
});
