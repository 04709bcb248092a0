import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import t from 'tap';
import { buildHostedTestApp, callbackHeaders, createTenant, type Created, loginOf } from '../helpers/hosted.js';

/*
 * One tenant floods its callback path (from another process, over keep-alive connections, as fast
 * as they go); another sends callbacks at an honest pace. The flood is answered 429 before its
 * body is read, so the honest tenant's median latency stays within 2× of what it is when the
 * flood is off. Phases alternate (quiet, flood, quiet, flood) so a machine busy with something
 * else weighs on both alike; medians, not means, so one slow scheduler tick does not decide.
 */

const FLOOD = `
const http = require('node:http');
const [url, headers, body] = JSON.parse(process.argv[1]);
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
let sent = 0, limited = 0;
const one = () => {
  const req = http.request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
    if (res.statusCode === 429) limited++;
    res.resume();
    res.on('end', () => { sent++; one(); });
  });
  req.on('error', () => setTimeout(one, 5));
  req.end(body);
};
for (let i = 0; i < 4; i++) one();
setInterval(() => process.stdout.write(JSON.stringify({ sent, limited }) + '\\n'), 200);
`;

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function timedCallback(url: string, tenant: Created): Promise<{ ms: number; code: string }> {
  const body = JSON.stringify(loginOf('honest'));
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { ...callbackHeaders(tenant), 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ ms: performance.now() - started, code: (JSON.parse(text) as { code: string }).code }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

t.test("one tenant's flood leaves another unrefused and its median latency near quiet", async (t) => {
  const { app } = await buildHostedTestApp({ tenantLimits: { callbacksPerSecond: 50 } });
  const flooder = await createTenant(app, { name: 'flooder' });
  const honest = await createTenant(app, { name: 'honest' });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(async () => {
    agent.destroy();
    await app.close();
  });
  const honestUrl = `${base}/t/${honest.id}/callback`;

  /** 40 callbacks, one every 25 ms (within the tenant's 50 a second). */
  const phase = async (): Promise<number[]> => {
    const ms: number[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await timedCallback(honestUrl, honest);
      if (r.code !== 'R0') throw new Error(`the honest tenant got ${r.code}`);
      ms.push(r.ms);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return ms;
  };

  await phase(); // warm-up: the JIT, the connection
  const quiet: number[] = [];
  const flooded: number[] = [];
  let last = { sent: 0, limited: 0 };
  for (let round = 0; round < 2; round++) {
    quiet.push(...(await phase()));
    const child = spawn(
      process.execPath,
      ['-e', FLOOD, JSON.stringify([`${base}/t/${flooder.id}/callback`, callbackHeaders(flooder), JSON.stringify(loginOf('flood'))])],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    child.stdout.setEncoding('utf8');
    const lines: string[] = [];
    child.stdout.on('data', (c: string) => lines.push(...c.split('\n').filter(Boolean)));
    // Measure once the flood is under way (its first report), not while it connects.
    while (lines.length === 0) await once(child.stdout, 'data');
    flooded.push(...(await phase()));
    child.kill();
    await once(child, 'exit');
    last = JSON.parse(lines.at(-1)!);
  }
  const q = median(quiet);
  const f = median(flooded);
  t.comment(
    `honest tenant median: quiet ${q.toFixed(2)} ms, flooded ${f.toFixed(2)} ms; the flood's last round: ${last.sent} sent, ${last.limited} answered 429`,
  );
  t.ok(last.limited > 100, 'the flood was a flood, mostly refused with 429');
  // The 2× figure is a measurement (docs/hosted.md); the test holds a wide bound, since two test
  // files share the machine and a busy core alone can double a 2 ms median. What it must catch is a
  // flood that starves the others (tens of ms, or refusals).
  t.ok(f <= Math.max(5 * q, q + 25), `flooded median ${f.toFixed(2)} ms is within 5× (or 25 ms) of quiet ${q.toFixed(2)} ms`);
});
