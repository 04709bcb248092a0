import type { JournalFilter, JournalListener, JournalStore, NewEntry, ReplyTiming, StoredEntry } from './journal.js';

/**
 * A journal shared by several processes (Redis), whose `tap` hears the entries this process keeps:
 * hosted mode's metrics count the callbacks each process answered, and need no reader of every
 * process's entries per tenant (`subscribe`, a connection of its own while someone listens).
 */
export class TappedJournal implements JournalStore {
  private readonly taps = new Set<JournalListener>();

  /** The shared journal's entry written by the callback's commit script: heard once the store numbered it. */
  readonly seal?: JournalStore['seal'];

  constructor(private readonly shared: JournalStore) {
    const seal = shared.seal?.bind(shared);
    if (seal)
      this.seal = (entry, done) => {
        const sealed = seal(entry, done);
        return sealed && { entry: sealed.entry, stored: (id: number) => this.told(sealed.stored(id)) };
      };
  }

  private told(entry: StoredEntry): StoredEntry {
    for (const tap of this.taps) tap(entry);
    return entry;
  }

  async record(entry: Omit<NewEntry, 'id'>): Promise<StoredEntry> {
    return this.told(await this.shared.record(entry));
  }

  async begin(entry: Omit<NewEntry, 'id' | 'replied_at' | 'duration_ms'>, chars?: number) {
    const begun = await this.shared.begin(entry, chars);
    return { id: begun.id, finish: async (done: ReplyTiming) => this.told(await begun.finish(done)) };
  }

  tap(listener: JournalListener): () => void {
    this.taps.add(listener);
    return () => this.taps.delete(listener);
  }

  inFlight() {
    return this.shared.inFlight();
  }
  select(filter?: JournalFilter) {
    return this.shared.select(filter);
  }
  list(filter?: JournalFilter) {
    return this.shared.list(filter);
  }
  count(filter?: JournalFilter) {
    return this.shared.count(filter);
  }
  subscribe(listener: JournalListener): () => void {
    return this.shared.subscribe(listener);
  }
  reset() {
    return this.shared.reset();
  }
}
