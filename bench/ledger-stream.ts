// Logins while large ledgers stream, as a user meets it (docs/limits.md, "Ledger reads and callbacks"): the built CLI in its
// own process (`wallet-sim start --port 0 --store file`) on a data file written here in the store's format (ROWS transactions
// in seconds; as callbacks, minutes), 4 readers (2 JSON, 2 CSV) reading GET /admin/ledger at full speed from a second
// process, and logins one after another from this one meanwhile.
//   node dist/bench/ledger-stream.js [--rows 200000] [--reads 1] [--cpu-prof <dir>] [--server-flags=--trace-gc] [--server-out <file>]
// --reads: each reader reads the ledger this many times in a row (more logins measured). --cpu-prof: the server writes a
// .cpuprofile there (dist/bench/profile.js reads it). --server-flags: node flags for the server; --server-out: its output.
// The server's event-loop gaps are a 1 ms timer's, run in the server by a module preloaded with --import (below): the
// product itself is unchanged.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { request } from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ROOT } from '../src/kernel/paths.js';
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION } from '../src/backends/file/snapshot-format.js';
import { cpuMs } from './servers.js';

const HEADERS = {
  'content-type': 'application/json',
  'api-id': 'sandbox',
  'api-key': 'sandbox-key',
  'callback-url': 'http://provider.test/cb',
};
const LOGIN = { event_type: 'login', feedback_data: 'fb', user_id: 'player-1' };
const PLAYERS = 100;
const START = 'start --port 0 --store file --log-level warn';

/**
 * Runs in the server (node --import data:…): the gaps between turns of a 1 ms timer, kept from the
 * first SIGWINCH on; the second SIGWINCH writes them (sorted percentiles) as one stderr line.
 */
const GAPS_PRELOAD = `
let gaps = [], last = performance.now(), on = false;
setInterval(() => { const now = performance.now(); if (on) gaps.push(now - last); last = now; }, 1).unref();
process.on('SIGWINCH', () => {
  if (!on) { on = true; gaps = []; last = performance.now(); return; }
  on = false;
  gaps.sort((a, b) => a - b);
  const q = (p) => gaps[Math.min(gaps.length - 1, Math.floor(p * gaps.length))] ?? 0;
  const over = (ms) => gaps.filter((g) => g > ms).length;
  process.stderr.write('LOOP-GAPS ' + JSON.stringify({ n: gaps.length, p50: q(0.5), p99: q(0.99), max: gaps.at(-1) ?? 0, over20: over(20), over50: over(50) }) + '\\n');
});`;

// The reader process: node dist/bench/ledger-stream.js --reader <url> <reads>

/** Reads one ledger at full speed; counts bytes and line ends, checks how it ends (never keeps the body). */
function readLedger(url: string, onFirst: () => void): Promise<{ bytes: number; lines: number; whole: boolean; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET ${url} answered ${res.statusCode}`));
      let bytes = 0;
      let lines = 0;
      let tail: Buffer = Buffer.alloc(0);
      res.on('data', (c: Buffer) => {
        if (bytes === 0) onFirst();
        bytes += c.length;
        for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, i + 1)) lines++;
        tail = c;
      });
      res.on('end', () => {
        const end = tail.toString('utf8').trimEnd();
        const whole = url.includes('csv') ? !end.includes('#INCOMPLETE') : end.endsWith(']');
        resolve({ bytes, lines, whole, ms: performance.now() - started });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function reader(url: string, reads: number) {
  const paths = ['/admin/ledger', '/admin/ledger?format=csv', '/admin/ledger', '/admin/ledger?format=csv'];
  let firsts = 0;
  const results = await Promise.all(
    paths.map(async (p) => {
      const done = [];
      const first = () => ++firsts === paths.length && process.stdout.write('STREAMING\n');
      for (let i = 0; i < reads; i++) done.push(await readLedger(`${url}${p}`, first));
      return { path: p, done };
    }),
  );
  process.stdout.write(`READ ${JSON.stringify(results)}\n`);
}

// The driver

/** A snapshot of the file store (src/backends/file/snapshot-format.ts): players, rows/2 rounds of a bet and its settlement. */
async function writeDataFile(path: string, rows: number): Promise<void> {
  const rounds = Math.ceil(rows / 2);
  const out = createWriteStream(path);
  const write = async (record: object) => {
    if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, 'drain');
  };
  const header = { format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, log_seq: 0, written_at: new Date().toISOString() };
  await write({ ...header, records: PLAYERS + rounds + rows });
  for (let p = 0; p < PLAYERS; p++) await write({ op: 'player', user_id: `player-${p}`, balance: '1000000', currency: 'KRW' });
  const of = (r: number) => ({ user_id: `player-${r % PLAYERS}`, game_no: `G${r}` });
  for (let r = 0; r < rounds; r++) await write({ op: 'round', ...of(r), currency: '', stake: '0', bets: [], settled: true });
  const at = Date.now() - rows;
  let balance = 1_000_000;
  for (let i = 0; i < rows; i++) {
    const r = Math.floor(i / 2);
    const settles = i % 2 === 1;
    balance += settles ? 15 : -10;
    const [transaction_id, event_type, amount] = settles ? [`res-${r}`, 'bet_result', '25'] : [`bet-${r}`, 'bet', '10'];
    const money = { currency: 'KRW', amount, balance_after: String(balance), applied_at: at + i };
    await write({ op: 'txn', transaction_id, event_type, fingerprint: '~bench', ...of(r), ...money });
  }
  out.end();
  await once(out, 'close');
}

let txn = 0;
/** One login on a fresh connection (as test/helpers/net.ts post): its time, and its code. */
function login(url: string): Promise<{ ms: number; code: string; id: string }> {
  const id = `bench-login-${process.pid}-${++txn}`;
  const body = JSON.stringify({ ...LOGIN, transaction_id: id, timestamp: Math.floor(Date.now() / 1000) });
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/callback`,
      { method: 'POST', agent: false, headers: { ...HEADERS, 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({ id, ms: performance.now() - started, code: /"code":"(\w+)"/.exec(text)?.[1] ?? `HTTP ${res.statusCode}` }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
const summary = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return `${s.length} logins: p50 ${pct(s, 0.5).toFixed(1)} ms, p99 ${pct(s, 0.99).toFixed(1)} ms, max ${(s.at(-1) ?? NaN).toFixed(1)} ms, over 50 ms: ${s.filter((x) => x > 50).length}`;
};
const rssKiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

type JournalPage = { entries: { transaction_id: string; duration_ms: number }[] };

function startServer(
  data: string,
  o: { cpuProf?: string; flags: string[]; out?: string },
): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const prof = o.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProf}`] : [];
  const cli = join(ROOT, 'dist/src/cli.js');
  const child = spawn(
    process.execPath,
    [`--import=data:text/javascript,${encodeURIComponent(GAPS_PRELOAD)}`, ...o.flags, ...prof, cli, ...START.split(' '), '--data', data],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('WALLET_SIM_'))),
    },
  );
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  if (o.out) {
    const file = createWriteStream(o.out);
    child.stdout!.on('data', (c: string) => file.write(c));
    child.stderr!.on('data', (c: string) => file.write(c));
  }
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve({ child, url: m[1]!, stderr: () => err });
    });
    child.once('exit', (code) => reject(new Error(`the server exited ${code} before listening:\n${out}${err}`)));
  });
}

/** Asks the preloaded timer for its gaps (the second SIGWINCH) and reads the line it writes. */
async function loopGaps(child: ChildProcess, stderr: () => string): Promise<Record<string, number> | undefined> {
  child.kill('SIGWINCH');
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    const m = /LOOP-GAPS (.*)\n/.exec(stderr());
    if (m) return JSON.parse(m[1]!) as Record<string, number>;
    await new Promise((r) => setTimeout(r, 20));
  }
  return undefined;
}

async function main() {
  const { values } = parseArgs({
    options: {
      rows: { type: 'string', default: '200000' },
      reads: { type: 'string', default: '1' },
      'cpu-prof': { type: 'string' },
      'server-flags': { type: 'string', default: '' },
      'server-out': { type: 'string' },
    },
  });
  const rows = Number(values.rows);
  const reads = Number(values.reads);
  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-ledger-stream-'));
  const data = join(dir, 'wallet.json');
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    let t0 = performance.now();
    await writeDataFile(data, rows);
    console.log(`data file: ${rows} transactions written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    t0 = performance.now();
    server = await startServer(data, {
      cpuProf: values['cpu-prof'],
      flags: values['server-flags'].split(/\s+/).filter(Boolean),
      out: values['server-out'],
    });
    const { child, url } = server;
    const pid = child.pid!;
    console.log(`server listening in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${url} (pid ${pid})`);

    const idle: number[] = [];
    for (let i = 0; i < 200; i++) idle.push((await login(url)).ms);
    const rssBefore = rssKiB(pid);
    const loadStart = loadavg()[0]!;

    child.kill('SIGWINCH'); // the preloaded timer starts keeping gaps
    const cpuBefore = cpuMs(pid) ?? NaN;
    const readers = spawn(process.execPath, [fileURLToPath(import.meta.url), '--reader', url, String(reads)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let readerOut = '';
    readers.stdout!.setEncoding('utf8').on('data', (c: string) => (readerOut += c));
    const readersDone = once(readers, 'close');
    let streaming = true;
    void readersDone.then(() => (streaming = false));
    while (!readerOut.includes('STREAMING') && streaming) await new Promise((r) => setTimeout(r, 1));
    const t1 = performance.now();
    let rssMax = 0;
    const sampler = setInterval(() => (rssMax = Math.max(rssMax, rssKiB(pid))), 100);
    const during: number[] = [];
    const ids = new Set<string>();
    const codes = new Set<string>();
    while (streaming) {
      const r = await login(url);
      codes.add(r.code);
      if (!streaming) break;
      during.push(r.ms);
      ids.add(r.id);
    }
    const streamedS = (performance.now() - t1) / 1000;
    clearInterval(sampler);
    await readersDone;
    const gaps = await loopGaps(child, server.stderr);
    const journal = (await (await fetch(`${url}/admin/journal?event_type=login&limit=10000`)).json()) as JournalPage;
    const handled = journal.entries.filter((e) => ids.has(e.transaction_id)).map((e) => e.duration_ms);
    const cpu = (cpuMs(pid) ?? NaN) - cpuBefore;
    const loadEnd = loadavg()[0]!;

    const m = /READ (.*)\n/.exec(readerOut);
    if (!m) throw new Error(`the readers ended without their figures: ${readerOut}`);
    const results = JSON.parse(m[1]!) as { path: string; done: { bytes: number; lines: number; whole: boolean; ms: number }[] }[];
    const short = results.flatMap((r) =>
      r.done.filter((d) => !d.whole || (r.path.includes('csv') && d.lines !== rows + 1)).map(() => r.path),
    );
    if (short.length) throw new Error(`not the whole ledger, or not ended as one: ${short.join(', ')}`);
    console.log(
      `readers: ${results.map((r) => `${r.path.includes('csv') ? 'CSV' : 'JSON'} ${(r.done[0]!.bytes / 1e6).toFixed(1)} MB in ${r.done.map((d) => (d.ms / 1000).toFixed(1)).join('/')} s`).join(', ')}`,
    );
    console.log(`no read:            ${summary(idle)}`);
    console.log(`4 reads streaming:  ${summary(during)} (codes ${[...codes].join(',')}; ${streamedS.toFixed(1)} s)`);
    console.log(`  of which in the server (the journal's duration_ms, whole ms): ${summary(handled)}`);
    if (gaps)
      console.log(
        `server event loop (1 ms timer) during the reads: ${gaps.n} gaps, p50 ${gaps.p50!.toFixed(1)} ms, p99 ${gaps.p99!.toFixed(1)} ms, ` +
          `max ${gaps.max!.toFixed(1)} ms, over 20 ms: ${gaps.over20}, over 50 ms: ${gaps.over50}`,
      );
    console.log(
      `server: CPU ${(cpu / 1000).toFixed(1)} s during the reads, RSS ${(rssBefore / 1024).toFixed(0)} MiB before, at most ${(rssMax / 1024).toFixed(0)} MiB during (every 100 ms)`,
    );
    console.log(
      `${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ` +
        `load average ${loadStart.toFixed(2)} → ${loadEnd.toFixed(2)}, ${new Date().toISOString()}`,
    );
    if (![...codes].every((c) => c === 'R0')) process.exitCode = 1;
  } finally {
    if (server) {
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--reader') await reader(process.argv[3]!, Number(process.argv[4] ?? 1));
else await main();
