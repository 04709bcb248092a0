// Time and peak RSS of `wallet-sim reconcile` (a real child process) against a large provider file
// (docs/limits.md): the file is generated (~65 bytes a row), a wallet-sim is started, and the
// reconcile child is run under /usr/bin/time (GNU time: elapsed seconds, peak RSS).
//   node dist/scripts/measure-reconcile.js [rows=5000000] [file]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../src/kernel/paths.js';
import { writeProviderFile } from './provider-file.js';

const rows = Number(process.argv[2] ?? 5_000_000);
const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-reconcile-size-'));
const file = process.argv[3] ?? join(dir, 'books.csv');
const cli = join(ROOT, 'dist/src/cli.js');

const t0 = performance.now();
const bytes = await writeProviderFile(file, rows);
console.log(`generated ${rows} rows, ${(bytes / 1e6).toFixed(0)} MB in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${file}`);

const sim = spawn(process.execPath, [cli, 'start', '--port', '0', '--log-level', 'silent'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise<string>((resolve) => {
  let out = '';
  sim.stdout!.setEncoding('utf8').on('data', (c: string) => {
    out += c;
    const m = /listening on (http:\/\/\S+) /.exec(out);
    if (m) resolve(m[1]!);
  });
});
try {
  const child = spawn('/usr/bin/time', ['-f', 'TIME %e %M %U %S', process.execPath, cli, 'reconcile', '--url', url, '--provider', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = 0;
  let firstLine = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => {
    if (!firstLine) firstLine = c.split('\n')[0]!;
    stdout += c.length;
  });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const m = /TIME ([\d.]+) (\d+) ([\d.]+) ([\d.]+)/.exec(stderr);
  if (!m) throw new Error(`no figures from /usr/bin/time: ${stderr}`);
  console.log(firstLine);
  console.log(
    `reconcile: exit ${code}, ${rows} rows (${(bytes / 1e6).toFixed(0)} MB) in ${m[1]} s ` +
      `(CPU ${(Number(m[3]) + Number(m[4])).toFixed(1)} s), peak RSS ${(Number(m[2]) / 1024).toFixed(0)} MiB, ` +
      `${(stdout / 1024).toFixed(0)} KiB of output; ${cpus().length} × ${cpus()[0]?.model}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ` +
      `Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)}, ${new Date().toISOString()}`,
  );
} finally {
  sim.kill();
  if (!process.argv[3]) rmSync(dir, { recursive: true, force: true });
}
