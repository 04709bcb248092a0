import type { FastifyBaseLogger } from 'fastify';

type Bindings = Record<string, unknown>;
type Options = Parameters<FastifyBaseLogger['child']>[1];
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * Fastify's per-request logger (request.log), made when the request first logs something at an
 * enabled level. Fastify makes a child of the server's logger for every request, writing its
 * bindings (the request id) as JSON each time; at the usual levels most requests log nothing (a
 * callback's own line is `info`), so most children were made for nothing.
 */
export function lazyChildLogger(parent: FastifyBaseLogger, bindings: Bindings, options: Options): FastifyBaseLogger {
  return new LazyChild(parent, bindings, options) as unknown as FastifyBaseLogger;
}

class LazyChild {
  private made?: FastifyBaseLogger;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: Options,
  ) {}

  private get real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.made?.level ?? this.options?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  child(bindings: Bindings, options?: Options): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }

  private log(level: Level, args: unknown[]): void {
    // A child made with its own level (a route's logLevel) decides for itself.
    if (this.made || this.options?.level !== undefined || enabled(this.parent, level))
      (this.real[level] as (...a: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void {
    this.log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.log('error', args);
  }
  warn(...args: unknown[]): void {
    this.log('warn', args);
  }
  info(...args: unknown[]): void {
    this.log('info', args);
  }
  debug(...args: unknown[]): void {
    this.log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.log('trace', args);
  }
  silent(): void {}
}

/** Whether the parent logs at `level` (pino's isLevelEnabled; a logger without it logs everything it is given). */
function enabled(parent: FastifyBaseLogger, level: Level): boolean {
  const check = (parent as { isLevelEnabled?: (l: string) => boolean }).isLevelEnabled;
  return check === undefined || check.call(parent, level);
}
