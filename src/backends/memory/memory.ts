import type { BackendOptions } from '../backend.js';
import { LocalBackend } from '../local/local-backend.js';
import { NO_PERSISTENCE } from '../../ledger/store.js';

/** `--store memory`: the wallet in this process, gone on exit. */
export class MemoryBackend extends LocalBackend {
  constructor(options: BackendOptions = {}) {
    super('memory', NO_PERSISTENCE, options);
  }
}
