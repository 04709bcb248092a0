import type { BackendOptions } from '../backend.js';
import { LocalBackend } from '../local/local-backend.js';
import type { Persistence } from '../../ledger/store.js';

const done = Promise.resolve();

/** Keeps nothing: the in-memory state is all there is, gone on exit. */
const nothing: Persistence = {
  kind: 'memory',
  immediate: true,
  load: () => Promise.resolve([]),
  commit: () => done,
  flush: () => done,
  close: () => done,
};

/** `--store memory`: the wallet in this process, gone on exit. */
export class MemoryBackend extends LocalBackend {
  constructor(options: BackendOptions = {}) {
    super('memory', nothing, options);
  }
}
