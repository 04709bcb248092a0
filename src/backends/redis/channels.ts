import type { Redis } from 'ioredis';
import { CONNECT_WAIT_MS, REDIS_OPTIONS } from './connection.js';

/**
 * Word between the processes of one Redis (pub/sub): a scenario change, a reset, a new grading
 * session, a tenant created or deleted. Pub/sub delivers nothing to a connection that was down,
 * so a listener is also told when its subscriber connected again: it then reads the state itself.
 */
export interface Channels {
  /**
   * Calls `word` with every message published on `channel`, and `missed` after the subscriber
   * reconnected. Resolves once listening, with the function that stops it.
   */
  listen(channel: string, word: (message: string) => void, missed: () => void): Promise<() => void>;
}

/** A connection that only listens: no offline queue, reconnecting by itself; errors are the caller's to notice. */
export function subscriberOf(client: Redis): Redis {
  const subscriber = client.duplicate({ ...REDIS_OPTIONS, commandTimeout: client.options.commandTimeout, lazyConnect: true });
  subscriber.on('error', () => {
    /* reconnects by itself; callbacks report the state */
  });
  return subscriber;
}

/**
 * Connects `client` (made with lazyConnect) and resolves true once it is ready, or false after `ms`
 * (it goes on connecting by itself). Not `client.connect()`'s promise: a Cluster's never settles when
 * its first ready check asks a master that is down (ioredis then reconnects and becomes ready, but
 * leaves that promise pending), and a process starting beside a dead master would wait forever.
 */
export function readyWithin(client: Redis, ms = CONNECT_WAIT_MS): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    client.on('ready', onReady);
    client.connect().catch(() => {
      /* reconnects by itself; ready or not within ms decides */
    });
  });
}

/** A subscriber connection for each listener (single-tenant Redis: one listener per process). */
export function ownChannels(client: Redis): Channels {
  return {
    async listen(channel, word, missed) {
      const subscriber = subscriberOf(client);
      subscriber.on('message', (_channel: string, message: string) => word(message));
      // After a reconnect, what was published meanwhile was missed.
      let first = true;
      subscriber.on('ready', () => {
        void subscriber.subscribe(channel).catch(() => {});
        if (!first) missed();
        first = false;
      });
      // Not ready in time (a cluster's master down): start all the same; once it is, the state is read again.
      if (!(await readyWithin(subscriber))) first = false;
      return () => subscriber.disconnect();
    },
  };
}

/**
 * One subscriber connection for every listener of a process (hosted mode: every tenant's
 * channels): it subscribes to patterns once, and hands each message to the listeners of its
 * channel. Listening costs no command and no connection.
 */
export class SharedChannels implements Channels {
  private readonly listeners = new Map<string, Set<{ word: (message: string) => void; missed: () => void }>>();

  private constructor(private readonly subscriber: Redis) {}

  /** Connects the subscriber and subscribes to `patterns` (each channel listened to must match one). */
  static async open(client: Redis, patterns: readonly string[]): Promise<SharedChannels> {
    const channels = new SharedChannels(subscriberOf(client));
    const { subscriber } = channels;
    subscriber.on('pmessage', (_pattern: string, channel: string, message: string) => {
      for (const l of channels.listeners.get(channel) ?? []) {
        try {
          l.word(message);
        } catch {
          // Not a word of ours (a message by hand): the other listeners still hear theirs.
        }
      }
    });
    let first = true;
    subscriber.on('ready', () => {
      if (first) return void (first = false);
      void subscriber.psubscribe(...patterns).catch(() => {});
      for (const set of channels.listeners.values()) for (const l of set) l.missed();
    });
    // Not ready in time (a cluster's master down): start all the same, subscribed once it is.
    if (await readyWithin(subscriber)) await subscriber.psubscribe(...patterns);
    else first = false;
    return channels;
  }

  listen(channel: string, word: (message: string) => void, missed: () => void): Promise<() => void> {
    const listener = { word, missed };
    let set = this.listeners.get(channel);
    if (!set) this.listeners.set(channel, (set = new Set()));
    set.add(listener);
    return Promise.resolve(() => {
      set.delete(listener);
      if (!set.size && this.listeners.get(channel) === set) this.listeners.delete(channel);
    });
  }

  close(): void {
    this.listeners.clear();
    this.subscriber.disconnect();
  }
}
