import type { Redis } from 'ioredis';
import { Generation } from './generation.js';
import type { CasDocument, Op } from './records.js';
import { isCluster } from './cluster.js';

/** KEYS: the generations taken; ARGV: the least the next may be. Answers one no other call answered. */
const TAKE_GENERATION = `
local n = redis.call('INCR', KEYS[1])
if n < tonumber(ARGV[1]) then n = tonumber(ARGV[1]); redis.call('SET', KEYS[1], n) end
return n
`;

/**
 * Why a cluster's generations are numbered by the clock (docs/scale-out.md, "Redis Cluster"): the
 * generation and the generations taken live in the session's slot, the players' records in other
 * masters' slots. A session's master that comes back empty (restarted without persistence) forgets
 * the numbers taken while the players' masters still hold that ledger's records: a number counted
 * again from 0 would name them, and an old player's old balance would be read as the new ledger's.
 * A number at least the clock's milliseconds is above every number taken before (each reset takes
 * one more, far fewer than one per millisecond), so no ledger's records are ever another's. On a
 * single Redis the generation and the records are lost together: it counts from 0, as before.
 */
const clockGeneration = () => Date.now();

/** The generation a new wallet's first key names (the seed moves it on at once, on a cluster: `seedGeneration`). */
export const firstGeneration = (client: Redis): number => (isCluster(client) ? clockGeneration() : 0);

/**
 * The generation a reset (or a cluster's seed) starts: after `from` (what Redis holds) and the one
 * this process saw. On a cluster a new ledger writes its records before its check (clusterCas): two
 * at once must not write into one generation, or the loser's records would replace those the
 * winner's ledger serves; each takes its own number, in the session's slot, at least the clock's.
 * On a single Redis a reset is one script (as before).
 */
export async function newGeneration(
  client: Redis,
  at: Generation,
  from: number | undefined,
  exchange: <T>(sent: Promise<T>) => Promise<T>,
): Promise<number> {
  const least = Math.max(from ?? 0, at.n) + 1;
  if (!isCluster(client)) return least;
  return Number(await exchange(client.eval(TAKE_GENERATION, 1, at.layout.taken, Math.max(least, clockGeneration()))));
}

/**
 * The generation a seed writes its records into: on a single Redis the current one (records and
 * marker in one script); on a cluster one of its own (`newGeneration`), flipped to by the seed's
 * check once every record is written (clusterCas), so that no process reads the ledger before its
 * records are all there; undefined when a ledger is seeded already (nothing to write).
 */
export async function seedGeneration(
  client: Redis,
  at: Generation,
  exchange: <T>(sent: Promise<T>) => Promise<T>,
): Promise<number | undefined> {
  if (!isCluster(client)) return at.n;
  return at.marker === undefined ? newGeneration(client, at, at.n, exchange) : undefined;
}

/**
 * A seed's compare-and-set: no ledger yet (no marker), the generation as read; then (a cluster's) the
 * flip to `gen`, the marker, the records.
 */
export function seedDocument(at: Generation, gen: number, records: readonly Op[]): CasDocument {
  const flip: Op[] = gen === at.n ? [] : [['SET', at.genKey, String(gen)]];
  const expect: CasDocument['expect'] = [
    [at.markerKey, false],
    [at.genKey, String(at.n)],
  ];
  return { expect, ops: [...flip, ['SET', at.markerKey, Generation.seedMark()], ...records] };
}
