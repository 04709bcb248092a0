import type { FastifyServerOptions } from 'fastify';
import { lazyPackage } from '../kernel/lazy-package.js';

const pretty = lazyPackage<typeof import('pino-pretty')>('pino-pretty');

/** JSON lines, or readable coloured lines (pino-pretty) when asked or when stdout is a terminal. */
export function logger(o: { logLevel: string; logFormat?: 'json' | 'pretty' }): FastifyServerOptions['logger'] {
  const format = o.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json');
  return {
    level: o.logLevel,
    ...(format === 'pretty'
      ? {
          stream: pretty().build({
            colorize: Boolean(process.stdout.isTTY),
            sync: true,
            translateTime: 'SYS:HH:MM:ss.l',
            ignore: 'pid,hostname',
            // One line per callback, its fields after the message (as json lines are one each).
            singleLine: true,
          }),
        }
      : {}),
    hooks: {
      // The start line below is the one line with the URL (docs/cli.md); Fastify's own is dropped.
      logMethod(args, method) {
        if (typeof args[0] === 'string' && args[0].startsWith('Server listening at')) return;
        method.apply(this, args);
      },
    },
  };
}
