import type { Redis } from 'ioredis';

/**
 * Commands sent while the event loop handles one batch of events (the replies Redis sent, the
 * callbacks that arrived) leave in one write, right after it, instead of one write each.
 *
 * ioredis writes every command to the socket at once: with 50 callbacks in flight, that was one
 * system call per command, and those writes were about a fifth of the wallet's CPU per callback
 * (a profile of the bench's Redis traffic, docs/bench.md). Corking the socket until the loop's
 * check phase (setImmediate) gathers them into one `writev`; Redis then reads them in one go too.
 * Nothing waits for a timer: the check phase comes in the same turn of the loop. Unlike ioredis's
 * `enableAutoPipelining`, each command stays on its own (no batch waits for the one before it).
 */
export function coalesceWrites(client: Redis): void {
  const send = client.sendCommand.bind(client);
  let corked = false;
  client.sendCommand = (command, stream) => {
    const socket = client.stream as Redis['stream'] | undefined;
    if (!corked && socket?.writable) {
      corked = true;
      socket.cork();
      setImmediate(() => {
        corked = false;
        socket.uncork();
      });
    }
    return send(command, stream);
  };
}
