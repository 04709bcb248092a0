import { createRequire } from 'node:module';
import type { FastifyCorsOptions } from '@fastify/cors';

/** Loaded with --cors only (as src/kernel/lazy-package.ts loads other packages; this layer is below it). */
const cors = () => createRequire(import.meta.url)('@fastify/cors') as typeof import('@fastify/cors');
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * `--cors [origins]`: which web pages may call wallet-sim from a browser.
 * - `anyOrigin` (a bare `--cors`, or `*` in the list): any page may call the callback route; never
 *   the admin API, which a page may call only when its origin is named explicitly.
 * - `origins`: these exact origins may call the callback route and the admin API.
 */
export interface CorsSetting {
  anyOrigin: boolean;
  origins: string[];
}

/**
 * Parses the --cors value (`true` for the bare flag); throws a message that says what to write,
 * naming the option as `option` (the Node API's reader writes `cors: 'http://…'`).
 */
export function parseCors(value: string | boolean | undefined, option = '--cors'): CorsSetting | undefined {
  if (value === undefined || value === false || value === '') return undefined;
  if (value === true) return { anyOrigin: true, origins: [] };
  const setting: CorsSetting = { anyOrigin: false, origins: [] };
  for (const item of value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (item === '*' || item === 'true') {
      setting.anyOrigin = true;
      continue;
    }
    let url: URL | undefined;
    try {
      url = new URL(item);
    } catch {
      /* below */
    }
    const bare =
      url !== undefined &&
      url.origin !== 'null' &&
      url.pathname === '/' &&
      !url.search &&
      !url.hash &&
      !url.username &&
      /^[a-z][a-z0-9+.-]*:\/\/[^/]+\/?$/i.test(item);
    if (!bare) {
      throw new Error(
        option === '--cors'
          ? `--cors: "${item}" is not an origin; write scheme://host[:port] without a path, e.g. --cors http://localhost:3000,https://qa.example.com (or a bare --cors for any origin on the callback route)`
          : `${option}: "${item}" is not an origin; write scheme://host[:port] without a path, e.g. cors: 'http://localhost:3000,https://qa.example.com' (or cors: true for any origin on the callback route)`,
      );
    }
    setting.origins.push(url!.origin);
  }
  return setting;
}

/**
 * Answers preflights and adds CORS headers on the callback route and the admin API, nowhere else.
 * `exposed`: the reply headers a browser client of the callback route may read (its credentials and echoes).
 */
export async function registerCors(app: FastifyInstance, setting: CorsSetting, callbackPath: string, exposed: string[]): Promise<void> {
  const off: FastifyCorsOptions = { origin: false };
  const callback: FastifyCorsOptions = {
    origin: setting.anyOrigin ? '*' : setting.origins,
    methods: ['POST'],
    exposedHeaders: exposed,
  };
  const admin: FastifyCorsOptions = setting.origins.length
    ? { origin: setting.origins, methods: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'] }
    : off;
  const path = (request: FastifyRequest) => request.url.split('?')[0];
  await app.register(cors().default, {
    delegator: (request, done) => {
      const p = path(request);
      done(null, p === callbackPath ? callback : p === '/admin' || p?.startsWith('/admin/') ? admin : off);
    },
  });
}
