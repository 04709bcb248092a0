import { Simulator, type SimulatorOptions, type SimulatorParts } from '../core/simulator.js';
import type { ActiveScenario } from '../core/scenario/scenario.js';
import type { Thresholds } from '../core/scenario/thresholds.js';
import type { Grading, JournalStore, WalletGradingOptions } from '../core/exchange.js';
import type { Backend } from '../core/ports.js';
import { LocalBackend } from '../backends/local/local-backend.js';
import type { RedisBackend } from '../backends/redis/redis-backend.js';
import { Journal } from '../journal/journal.js';
import { LocalGrading } from '../grading/local-feed.js';
import type { GradingSession } from '../grading/session.js';
import { LocalWallet } from '../wallet/local-wallet.js';
import { UpstreamWallet } from '../wallet/upstream-wallet.js';
import { seedProtocol } from '../protocol/seed/protocol.js';

/*
 * The one place that composes a simulator: the seed protocol (the core reads callbacks with it),
 * the backend, the journal and grading that consume its exchanges, and the wallet adapter.
 */

/** A backend's journal: in this process for a local backend, in Redis beside a Redis one. One per backend. */
export async function journalOf(backend: LocalBackend): Promise<Journal>;
export async function journalOf(backend: Backend): Promise<JournalStore>;
export async function journalOf(backend: Backend): Promise<JournalStore> {
  let journal = journals.get(backend);
  if (!journal) {
    journal = isRedis(backend) ? await redisJournal(backend) : localJournal(backend);
    journals.set(backend, journal);
  }
  return journal;
}
const journals = new WeakMap<Backend, JournalStore>();

function localJournal(backend: Backend): Journal {
  const { journalSize, journalBytes } = backend instanceof LocalBackend ? backend.options : {};
  return new Journal(journalSize, journalBytes);
}

/** On the backend's connection, under its prefix; loaded only for Redis (the memory and file stores never load ioredis). */
async function redisJournal(backend: RedisBackend): Promise<JournalStore> {
  const { RedisJournal } = await import('../journal/redis-journal.js');
  const { journalSize, journalBytes } = backend.options;
  const journal = new RedisJournal(backend.client, backend.keyPrefix, journalSize, journalBytes, () => backend.store.link.failure);
  // (no journal id taken with the callback's count: a callback answered at once is numbered by its
  // commit script; the others take theirs when journalled)
  backend.use(() => journal.close());
  if (!backend.channels) return journal;
  // A hosted tenant's: its metrics hear this process's entries (no reader of every process's per tenant).
  const { TappedJournal } = await import('../journal/tapped-journal.js');
  return new TappedJournal(journal);
}

/** The grading sessions over a backend: folded in this process, or shared through a Redis stream. */
export async function gradingOf(
  backend: Backend,
  thresholds: Thresholds,
  seed: () => number,
  wallet: () => WalletGradingOptions | undefined = () => undefined,
): Promise<Grading<GradingSession>> {
  if (!isRedis(backend)) return new LocalGrading(thresholds, seed, wallet);
  const { SharedGrading } = await import('../grading/redis-feed.js');
  const shared = new SharedGrading(backend.client, backend.keyPrefix, thresholds, seed, wallet);
  // Folded on demand: when a report or the dashboard asks, not as each process's callbacks come. Every
  // process folding every process's events cost each callback ~40 µs per process (docs/scale-out.md).
  // A hosted tenant listens on the process's shared subscriber; a single wallet, on a subscriber of its own.
  const channels = backend.channels ?? (await import('../backends/redis/channels.js')).ownChannels(backend.client);
  const grading = new (await import('../grading/on-demand.js')).OnDemandGrading(shared, backend.client, backend.prefix, channels);
  await grading.join();
  backend.use(() => grading.close());
  return grading;
}

/**
 * The simulator over a backend (memory, file, Redis): starts from what the backend holds (src/core/simulator.ts
 * `Simulator.open`), with the local ledger, or the operator's wallet behind `options.upstream`.
 */
export async function openSimulator(
  scenario: ActiveScenario,
  backend: LocalBackend,
  options?: SimulatorOptions,
): Promise<Simulator<Journal, GradingSession>>;
export async function openSimulator(scenario: ActiveScenario, backend: Backend, options?: SimulatorOptions): Promise<Simulator>;
export async function openSimulator(scenario: ActiveScenario, backend: Backend, options: SimulatorOptions = {}): Promise<Simulator> {
  const { upstream } = options;
  const parts: SimulatorParts<JournalStore, GradingSession> = {
    backend,
    protocol: seedProtocol,
    journal: await journalOf(backend),
    grading: (thresholds, seed, wallet) => gradingOf(backend, thresholds, seed, wallet),
    wallet: (sim) => (upstream ? new UpstreamWallet(sim, upstream) : new LocalWallet(sim)),
  };
  return Simulator.open(scenario, parts, options);
}

const isRedis = (backend: Backend): backend is RedisBackend => backend.kind === 'redis';
