import crypto from 'node:crypto';

/** Ids per generation: a full generation is frozen into one sorted array of 8 MiB. */
export const GENERATION_SIZE = 1 << 20;

/** What a store keeps of the forgotten ids: the generations as base64 of their 64-bit hashes. */
export interface ForgottenRecord {
  generations: string[];
  active: string;
}

/**
 * The ids a wallet no longer remembers (docs/design.md "Bounded memory"), kept as 64-bit hashes: 8 bytes
 * per forgotten id instead of a whole record. `has` is true for every forgotten id; it is also
 * true for a never-seen id only when that id's 64-bit hash collides with a forgotten one's — about
 * n / 2^64 for n forgotten ids (one in 700 billion after 26 million), so in practice never.
 *
 * New hashes go into an open-addressing table; once it holds GENERATION_SIZE of them it is sorted
 * into a frozen generation searched by bisection, so memory grows by 8 bytes per forgotten id.
 */
export class ForgottenIds {
  private frozen: BigUint64Array[] = [];
  private table = new BigUint64Array(0);
  private filled = 0;

  /** How many ids were forgotten. */
  get size(): number {
    return this.frozen.reduce((n, g) => n + g.length, this.filled);
  }

  add(key: string): void {
    this.insert(hash64(key));
  }

  /** Nothing forgotten yet: a caller skips making the key it would ask `has` about (every callback asks, twice). */
  get empty(): boolean {
    return this.filled === 0 && this.frozen.length === 0;
  }

  has(key: string): boolean {
    if (this.empty) return false;
    const h = hash64(key);
    if (this.lookup(h)) return true;
    return this.frozen.some((g) => bisect(g, h));
  }

  clear(): void {
    this.frozen = [];
    this.table = new BigUint64Array(0);
    this.filled = 0;
  }

  toRecord(): ForgottenRecord {
    return { generations: this.frozen.map(toBase64), active: toBase64(this.activeHashes()) };
  }

  /**
   * Adds the ids of a record to these: a snapshot's record comes after its transactions, and a
   * restart with a smaller --retain-transactions has already forgotten some of those meanwhile.
   */
  absorb(record: ForgottenRecord): void {
    const other = ForgottenIds.fromRecord(record);
    if (this.filled === 0 && this.frozen.length === 0) {
      this.frozen = other.frozen;
      this.table = other.table;
      this.filled = other.filled;
      return;
    }
    this.frozen.push(...other.frozen);
    for (const h of other.activeHashes()) this.insert(h);
  }

  static fromRecord(record: ForgottenRecord): ForgottenIds {
    const ids = new ForgottenIds();
    ids.frozen = record.generations.map((g) => fromBase64(g).sort());
    for (const h of fromBase64(record.active)) ids.insert(h);
    return ids;
  }

  private insert(h: bigint): void {
    if (this.table.length === 0) this.table = new BigUint64Array(GENERATION_SIZE * 2);
    if (this.lookup(h)) return;
    const mask = BigInt(this.table.length - 1);
    for (let slot = Number(h & mask); ; slot = (slot + 1) & (this.table.length - 1)) {
      if (this.table[slot] === 0n) {
        this.table[slot] = h;
        break;
      }
    }
    if (++this.filled === GENERATION_SIZE) {
      this.frozen.push(this.activeHashes().sort());
      this.table = new BigUint64Array(0);
      this.filled = 0;
    }
  }

  private lookup(h: bigint): boolean {
    if (this.filled === 0) return false;
    const mask = this.table.length - 1;
    for (let slot = Number(h & BigInt(mask)); this.table[slot] !== 0n; slot = (slot + 1) & mask) {
      if (this.table[slot] === h) return true;
    }
    return false;
  }

  private activeHashes(): BigUint64Array {
    return this.table.filter((h) => h !== 0n);
  }
}

/**
 * The first 8 bytes of the key's SHA-256, never 0 (0 marks an empty slot). One-shot crypto.hash
 * (Node ≥ 20.12) where there is one: once ids are forgotten, every callback hashes two keys.
 */
function hash64(key: string): bigint {
  const digest =
    typeof crypto.hash === 'function' ? crypto.hash('sha256', key, 'buffer') : crypto.createHash('sha256').update(key).digest();
  const h = digest.readBigUInt64LE(0);
  return h === 0n ? 1n : h;
}

function bisect(sorted: BigUint64Array, h: bigint): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v === h) return true;
    if (v < h) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

const toBase64 = (a: BigUint64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');

function fromBase64(text: string): BigUint64Array {
  const buf = Buffer.from(text, 'base64');
  if (buf.length % 8 !== 0) throw new Error('a forgotten-ids generation is not a whole number of 8-byte hashes');
  const out = new BigUint64Array(buf.length / 8);
  for (let i = 0; i < out.length; i++) out[i] = buf.readBigUInt64LE(i * 8);
  return out;
}
