import { randomUUID } from 'node:crypto';
import { redact } from './connection.js';
import { type GenKeys, KeyLayout } from './keys.js';
import { StoreUnavailable } from '../../ledger/store-error.js';

/** The `initialized` marker's value: seeded by a process starting, or started afresh by a reset. */
const INIT_MARK = 'init ';
const RESET_MARK = 'reset ';

/**
 * Which ledger in Redis this process works on, and whether Redis still holds it (docs/design.md: lost
 * state is detected, never looped on, never rebuilt silently — that would forget the idempotency
 * index and allow a second debit).
 *
 *   gen          the current generation n: every record key is `<prefix>g<n>:…`; a reset increments it
 *   initialized  a marker, new with every seed (`init …`) and every reset (`reset …`)
 *
 * A process follows a reset made by another one (a `reset …` marker). A generation key that is
 * gone (FLUSHALL, a restart without persistence, eviction), a marker that is gone or was seeded
 * afresh behind this process's back, or a required key that is gone, is lost state: callbacks get
 * R1 with `lost()`'s reason until `POST /admin/reset` starts afresh.
 */
export class Generation {
  /** The generation this process works on. */
  n = 0;
  /** The marker this process works under (undefined until it has seen one). */
  private epoch?: string;

  /** The marker this process works under, as a commit expects to find it (undefined: not seen yet). */
  get marker(): string | undefined {
    return this.epoch;
  }
  /** Keys that must exist besides these two (the active scenario). */
  readonly vital: string[] = [];
  /** Why the state counts as lost, since a read found it so (cleared by a read that finds it whole). */
  lostReason?: string;

  /** Where the wallet's keys live (keys.ts). */
  readonly layout: KeyLayout;

  constructor(
    readonly prefix: string,
    private readonly url: string,
  ) {
    this.layout = new KeyLayout(prefix);
  }

  get genKey(): string {
    return this.layout.gen;
  }

  get markerKey(): string {
    return this.layout.marker;
  }

  /** On a cluster: players of this generation found listed but gone (their master lost its records). */
  private lostPlayers?: { gen: number; users: Set<string> };

  /** Those players, for /health's `degraded` (until a reset starts another generation), or undefined. */
  get playersLost(): string | undefined {
    const lost = this.lostPlayers?.gen === this.n ? [...this.lostPlayers.users] : [];
    if (!lost.length) return undefined;
    const named =
      lost
        .slice(0, 3)
        .map((u) => JSON.stringify(u))
        .join(', ') + (lost.length > 3 ? ', …' : '');
    return (
      `Redis at ${redact(this.url)} lost wallet-sim's state of ${lost.length === 1 ? 'player' : `${lost.length}${lost.length >= 1_000 ? '+' : ''} players`} ${named} ` +
      '(their master flushed, evicted or restarted without persistence): their callbacks get R1, the others are served; POST /admin/reset starts afresh'
    );
  }

  /** The keys of generation `gen`. */
  keys(gen: number): GenKeys {
    return this.layout.of(gen);
  }

  lost(what: string): StoreUnavailable {
    this.lostReason =
      `Redis at ${redact(this.url)} lost wallet-sim's state (${what}: flushed, evicted or restarted without persistence); ` +
      'POST /admin/reset starts afresh';
    return new StoreUnavailable(this.lostReason);
  }

  /**
   * A player listed but gone. On a single Redis, Redis lost the wallet: `lost`. On a cluster
   * (`cluster`), that player's master lost its records: its callbacks are R1 (this error), the other
   * players' are served (no process-wide flag; the session's own keys gone still are `lost`).
   */
  lostPlayer(userId: string, cluster: boolean): StoreUnavailable {
    const player = `player ${JSON.stringify(userId)}`;
    if (!cluster) return this.lost(`${player} listed but gone`);
    if (this.lostPlayers?.gen !== this.n) this.lostPlayers = { gen: this.n, users: new Set() };
    if (this.lostPlayers.users.size < 1_000) this.lostPlayers.users.add(userId);
    return new StoreUnavailable(
      `Redis at ${redact(this.url)} lost wallet-sim's state (${player} listed but gone: its master flushed, evicted or ` +
        'restarted without persistence; the other players are served); POST /admin/reset starts afresh',
    );
  }

  /**
   * Takes in the generation and marker Redis holds: true when another process reset the wallet
   * (this one now works on the new generation); throws when Redis lost the state.
   */
  follow(gen: string | null, marker: string | null): boolean {
    if (gen === null) throw this.lost('no generation key');
    if (this.epoch !== undefined && marker !== this.epoch) {
      if (marker === null) throw this.lost('no initialized key');
      if (!marker.startsWith(RESET_MARK)) throw this.lost('seeded afresh by another process');
    }
    this.epoch = marker ?? undefined;
    this.lostReason = undefined;
    if (gen === String(this.n)) return false;
    this.n = Number(gen);
    return true;
  }

  /** Works on whatever ledger Redis holds next (after this process seeded it, or found it seeded). */
  forgetEpoch(): void {
    this.epoch = undefined;
  }

  /** After this process reset the wallet. */
  adopt(n: number, epoch: string | undefined): void {
    this.n = n;
    this.epoch = epoch;
    this.lostReason = undefined;
  }

  static seedMark = () => `${INIT_MARK}${new Date().toISOString()} ${randomUUID()}`;
  static resetMark = () => `${RESET_MARK}${new Date().toISOString()} ${randomUUID()}`;
}
