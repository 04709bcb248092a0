import type { Persistence } from '../store.js';

const done = Promise.resolve();

/** Keeps nothing: the wallet's in-memory state is all there is, gone on exit. */
export class MemoryStore implements Persistence {
  readonly kind = 'memory';
  async load() {
    return [];
  }
  commit() {
    return done;
  }
  flush() {
    return done;
  }
  async close() {}
}
