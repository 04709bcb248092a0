import type { Redis } from 'ioredis';
import { JOURNAL_ADD } from '../backends/redis/journal-add.js';

/** The Redis journal's own scripts (src/journal/redis-journal.ts), and its client with them defined. */
export type JournalClient = Redis & {
  walletJournalAdd(...args: (string | number)[]): Promise<number>;
  walletJournalReset(...keys: string[]): Promise<string>;
};

/**
 * Adds an entry (ARGV 4…: its fields, id first; ARGV 1–3: the bounds and its n) and trims
 * (JOURNAL_ADD); not one begun before the journal was last cleared (its id at most the floor): -1.
 */
export const ADD = `${JOURNAL_ADD}
if tonumber(ARGV[5]) <= tonumber(redis.call('GET', KEYS[3]) or '0') then return -1 end
return journal_add(KEYS[1], KEYS[2], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), {unpack(ARGV, 4)})`;

/** Clears the journal, and sets its floor: the last id given (ids are never given again, so one above it began after). */
export const RESET = `redis.call('DEL', KEYS[1], KEYS[2], KEYS[1] .. ':sizes')
local floor = redis.call('GET', KEYS[3]) or '0'
redis.call('SET', KEYS[4], floor)
return floor`;
