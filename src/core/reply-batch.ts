/** A reply ready to be written: written with the others of its turn. */
export interface BatchedReply {
  write(): void;
  /** A failure writing it: as a throw from the route would be. */
  failedLater(e: unknown): void;
}

/**
 * The replies decided while the event loop handles one batch of events (reads, the file store's
 * commits, Redis answers), written together right after it, in the same turn of the loop: a
 * caller on the same machine (a provider's tests in CI) is woken once for them instead of once
 * per reply, which cost the wallet's process more CPU than most of a callback's own work
 * (docs/bench.md). No timer fires in between; a delayed reply is not batched.
 */
const replies: BatchedReply[] = [];

export function batchReply(reply: BatchedReply): void {
  if (replies.push(reply) === 1) setImmediate(writeReplies);
}

function writeReplies(): void {
  for (const answer of replies) {
    try {
      answer.write();
    } catch (e) {
      answer.failedLater(e);
    }
  }
  replies.length = 0;
}
