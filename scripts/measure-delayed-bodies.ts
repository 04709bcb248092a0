// Peak RSS of a wallet-sim that holds delayed callbacks with large bodies (docs/limits.md):
// N bets of ~1 MiB each, all answered after a 5 s delay_ms, sent at once over real sockets.
//   node dist/scripts/measure-delayed-bodies.js [count=400] [delayMs=5000] [-- extra start options]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../src/kernel/paths.js';

const count = Number(process.argv[2] ?? 400);
const delayMs = Number(process.argv[3] ?? 5000);
const extra = process.argv.includes('--') ? process.argv.slice(process.argv.indexOf('--') + 1) : [];
const scenario = join(mkdtempSync(join(tmpdir(), 'wallet-sim-delayed-')), 'slow.json');
writeFileSync(
  scenario,
  JSON.stringify({
    name: 'slow',
    credentials: { api_id: 'sandbox', api_key: 'sandbox-key' },
    currencies: { KRW: 0 },
    defaults: { currency: 'KRW', balance: 1e12, auto_create_players: true },
    rules: [{ name: 'slow', when: { event_type: 'bet' }, then: { delay_ms: delayMs } }],
  }),
);
const child = spawn(
  process.execPath,
  [join(ROOT, 'dist/src/cli.js'), 'start', '--port', '0', '--scenario', scenario, '--log-level', 'silent', ...extra],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const url = await new Promise<string>((resolve) => {
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    out += c;
    const m = /listening on (http:\/\/\S+) /.exec(out);
    if (m) resolve(m[1]!);
  });
});
const peak = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;
const before = peak();
const feedback = 'f'.repeat(1024 * 1024 - 600);
const ts = Math.floor(Date.now() / 1000);
const send = (i: number) =>
  new Promise<string>((resolve) => {
    const body = JSON.stringify({
      transaction_id: `big-${i}`,
      event_type: 'bet',
      timestamp: ts,
      feedback_data: feedback,
      user_id: `p${i}`,
      data: {
        currency: 'KRW',
        game_type: 'BAC',
        table_no: 'T1',
        game_no: `g${i}`,
        total_bet_amount: 10,
        bets: [{ bet_index: '1', bet_type: 'P', bet_amount: 10 }],
      },
    });
    const req = request(`${url}/callback`, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        'api-id': 'sandbox',
        'api-key': 'sandbox-key',
        'callback-url': 'x',
        'content-length': Buffer.byteLength(body),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve(/"code":"(R\d)"/.exec(text)?.[1] ?? `HTTP ${res.statusCode}`));
    });
    req.on('error', (e) => resolve(e.message));
    req.end(body);
  });
const started = Date.now();
const codes = await Promise.all(Array.from({ length: count }, (_, i) => send(i)));
const tally = codes.reduce<Record<string, number>>((m, c) => ({ ...m, [c]: (m[c] ?? 0) + 1 }), {});
console.log(
  `${count} bets of ${(feedback.length / 1024 / 1024).toFixed(2)} MiB delayed ${delayMs} ms: ${JSON.stringify(tally)} in ${Date.now() - started} ms`,
);
console.log(`peak RSS: ${before.toFixed(0)} MiB at start, ${peak().toFixed(0)} MiB at the end (VmHWM)`);
child.kill('SIGTERM');
