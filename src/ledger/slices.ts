/**
 * How ledger reads share the event loop (docs/limits.md, "Ledger reads and callbacks"). A read
 * makes rows and their text for a slice of time, hands the text on, then waits for the next turn
 * of the loop (`setImmediate`: the callbacks that arrived meanwhile run first). All the reads
 * that run in one turn share TURN_MS between them: four reads at once hold a turn no longer than
 * one does, so a callback waits about as long behind four reads as behind one.
 */
export const TURN_MS = 1;

/** Reads waiting for the next turn (they asked for a slice), and reads of this turn still to run. */
let queued = 0;
let left = 0;
let share = TURN_MS;

/**
 * Waits for the next turn of the event loop; resolves with the time (performance.now()) this
 * read's slice of that turn ends. Every call is answered by its own setImmediate, so the counts
 * stay right whatever becomes of the read (a client gone, a reset): nothing to release.
 */
export async function nextSlice(): Promise<number> {
  queued++;
  await new Promise((resolve) => setImmediate(resolve));
  // Immediates run in the order they were set: the first read of a turn finds every read that
  // asked before this turn began in `queued`; the ones asking from now on are the next turn's.
  if (left <= 0) {
    left = Math.max(queued, 1);
    queued = 0;
    share = TURN_MS / left;
  }
  left--;
  return performance.now() + share;
}

/** The end of a read's first slice, which starts outside the reads' turns (the request's own callback). */
export const firstSlice = (): number => performance.now() + share;

/** Each read's share of the last turn (ms), for the tests. */
export const sliceShare = (): number => share;
