import { createHash } from 'node:crypto';
import { Command, type Redis } from 'ioredis';

/**
 * A Lua script called with ARGV only, its arguments written out once as they are given.
 *
 * ioredis's own script commands (`defineCommand`) copy the arguments three times before they
 * write them (the call's rest parameter, `[sha, ...args]`, `args.flat()`), then convert and write
 * them one by one: with the commit's 59 arguments, that was about 8 % of the wallet's busy main
 * thread on Redis (docs/scale-out-figures.md). This writes them in one pass into the command's
 * text. The rest is ioredis's, as with `defineCommand`: the first call on a connection sends the
 * script itself (EVAL), later ones its SHA1 (EVALSHA), and a NOSCRIPT answer (Redis restarted or
 * its scripts flushed) sends it again whole.
 */
export class LuaScript {
  readonly sha: string;
  /** The connections (sockets) this script has been sent on whole. */
  private readonly sent = new WeakSet<object>();

  constructor(readonly lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  call<T>(client: Redis, args: readonly (string | number)[]): Promise<T> {
    const argv = argvText(args);
    return (client.sendCommand(new ScriptCommand(this, argv, args.length)) as Promise<T>).catch((e: Error) => {
      if (!e.message.includes('NOSCRIPT')) throw e;
      return client.sendCommand(new ScriptCommand(this, argv, args.length)) as Promise<T>;
    });
  }

  /** What a call writes first on `socket`: the script whole the first time, else its SHA1. */
  head(socket: object): ['eval' | 'evalsha', string] {
    if (this.sent.has(socket)) return ['evalsha', this.sha];
    this.sent.add(socket);
    return ['eval', this.lua];
  }

  /** Redis no longer has it (NOSCRIPT): the next call on `socket` sends it whole. */
  forget(socket: object): void {
    this.sent.delete(socket);
  }
}

/** ARGV as RESP bulk strings. */
function argvText(args: readonly (string | number)[]): string {
  let text = '';
  for (const arg of args) {
    const s = typeof arg === 'string' ? arg : String(arg);
    text += `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
  }
  return text;
}

class ScriptCommand extends Command {
  constructor(
    private readonly script: LuaScript,
    private readonly argv: string,
    private readonly argc: number,
  ) {
    super('evalsha', [], { replyEncoding: 'utf8' });
  }

  override toWritable(socket: object): string {
    const [name, head] = this.script.head(socket);
    this.name = name;
    const reject = this.reject;
    this.reject = (e: Error) => {
      if (e.message.includes('NOSCRIPT')) this.script.forget(socket);
      reject(e);
    };
    return `*${this.argc + 3}\r\n$${name.length}\r\n${name}\r\n$${Buffer.byteLength(head)}\r\n${head}\r\n$1\r\n0\r\n${this.argv}`;
  }
}
