import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS package loaded at its first use, not when the module naming it loads. For packages
 * that only some runs need (undici for proxy mode and the probe, prom-client for hosted mode,
 * pino-pretty for a terminal, @fastify/cors for --cors): loading them all cost every CLI start a
 * few tenths of a second.
 */
export function lazyPackage<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
