// The commit script's command is written by wallet-sim itself (src/backends/redis/script-call.ts),
// in one buffer. It must be the very bytes ioredis writes for the same EVALSHA or EVAL, whatever
// the arguments hold: UTF-8 beyond ASCII, lone surrogates, empty strings, numbers, long texts.
import t from 'tap';
import { Command, type Redis } from 'ioredis';
import { LuaScript } from '../../src/backends/redis/script-call.js';

/** A client that keeps the commands sent, never answering. */
function recorder(): { client: Redis; sent: Command[] } {
  const sent: Command[] = [];
  const client = { sendCommand: (c: Command) => (sent.push(c), new Promise(() => {})) } as unknown as Redis;
  return { client, sent };
}

const bytes = (w: string | Buffer) => (typeof w === 'string' ? Buffer.from(w) : w);

const ARGS: [string, (string | number)[]][] = [
  ['none', []],
  ['ASCII and numbers', ['wallet:{p}:player', 7, 0, -3, 1.5, 'x']],
  ['empty strings', ['', '', 'a', '']],
  ['beyond ASCII', ['joueur-é-玩家-🎲', '\u2028\u2029', 'naïve']],
  ['lone surrogates', ['t\ud800', '\udfff x \ud83c', '\udc00']],
  ['long texts', ['{"id":'.padEnd(5000, 'é'), 'z'.repeat(12345), String(2 ** 53)]],
  ['sizes of every width', ['1'.repeat(9), '2'.repeat(10), '3'.repeat(99), '4'.repeat(100), '5'.repeat(999), '6'.repeat(1000)]],
];

t.test('EVALSHA, and EVAL on a connection the script was not sent on: the bytes ioredis writes', async (t) => {
  const script = new LuaScript('return #ARGV');
  for (const [name, args] of ARGS) {
    const { client, sent } = recorder();
    void script.call(client, args);
    void script.call(client, args);
    const socket = {};
    const first = bytes(sent[0]!.toWritable(socket));
    const second = bytes(sent[1]!.toWritable(socket));
    const evalOwn = bytes(new Command('eval', [script.lua, 0, ...args]).toWritable(socket));
    const shaOwn = bytes(new Command('evalsha', [script.sha, 0, ...args]).toWritable(socket));
    t.ok(first.equals(evalOwn), `${name}: the first on a connection is EVAL, as ioredis writes it`);
    t.ok(second.equals(shaOwn), `${name}: then EVALSHA, as ioredis writes it`);
    t.ok(bytes(sent[1]!.toWritable(socket)).equals(shaOwn), `${name}: written again (a resend), the same bytes`);
  }
});
