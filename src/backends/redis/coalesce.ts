import type { Redis } from 'ioredis';

/** Per coalesced client: what runs right before its gathered commands leave. */
const pending = new WeakMap<Redis, { corked: boolean; cork(): void; hooks: (() => void)[] }>();

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
  const state = { corked: false, hooks: [] as (() => void)[], cork };
  function cork(): void {
    const socket = client.stream as Redis['stream'] | undefined;
    if (state.corked || !socket?.writable) return;
    state.corked = true;
    socket.cork();
    setImmediate(() => {
      // Commands these add leave in the same write.
      for (const hook of state.hooks.splice(0)) hook();
      state.corked = false;
      socket.uncork();
    });
  }
  pending.set(client, state);
  client.sendCommand = (command, stream) => {
    cork();
    return send(command, stream);
  };
}

/**
 * Runs `hook` once, right before the commands gathered in this turn of the loop leave (they may
 * add commands of their own): a caller can gather what the turn asked for into one command.
 */
export function beforeWrite(client: Redis, hook: () => void): void {
  const state = pending.get(client);
  if (!state) {
    setImmediate(hook);
    return;
  }
  state.cork();
  if (state.corked) state.hooks.push(hook);
  else setImmediate(hook); // (not connected: the command fails at once, as any other)
}
