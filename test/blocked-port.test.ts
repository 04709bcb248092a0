// A wallet-sim served on a port fetch refuses (the Fetch standard's blocked ports): it listens, but
// send, probe and report cannot call it, and say so instead of "no reply"; start warns on it.
import { createServer } from 'node:net';
import t from 'tap';
import { BLOCKED_PORTS } from '../src/client/blocked-ports.js';
import { probeCommand } from '../src/commands/probe.js';
import { reportCommand } from '../src/commands/report.js';
import { sendCommand } from '../src/commands/send.js';
import { runHere } from './helpers/run-here.js';
import { start } from './helpers/spawn-cli.js';

/** A blocked port free here now, found by listening on each in turn (ports below 1024 need root: tried last). */
async function freeBlockedPort(): Promise<number | undefined> {
  const ports = [...BLOCKED_PORTS].sort((a, b) => Number(a < 1024) - Number(b < 1024) || a - b);
  for (const port of ports) {
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer()
        .once('error', () => resolve(false))
        .listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  return undefined;
}

const port = await freeBlockedPort();
const skip = port === undefined && 'no port of the blocked list is free here';

t.test('a wallet-sim on a blocked port: start warns; send, probe and report name the port', { skip }, async (t) => {
  if (port === undefined) return;
  const sim = await start(t, ['--port', String(port), '--host', '127.0.0.1']);
  t.equal(sim.port, port, 'it listens');
  t.match(sim.stderr(), `warning: port ${port} is one fetch refuses to call`, 'start warns on stderr');
  t.match(sim.stderr(), /send, probe and report included, will refuse to call it; pick another with --port/);

  const named = new RegExp(
    `port ${port} is one fetch refuses to call \\(the Fetch standard's blocked ports\\): serve the wallet on another port`,
  );
  const send = await runHere(sendCommand(), ['login', '--url', `${sim.url}/callback`]);
  t.equal(send.code, 1);
  t.match(send.stdout, new RegExp(`← not sent: ${named.source}`));
  t.notMatch(send.stdout, /no reply after/);
  t.match(send.stderr, named, "the defaults' line says why the scenario was not read");

  const probe = await runHere(probeCommand(), [
    '--url',
    `${sim.url}/callback`,
    '--api-id',
    'sandbox',
    '--api-key',
    'sandbox-key',
    '--user',
    'usd',
  ]);
  t.equal(probe.code, 2, 'the probe cannot check');
  t.match(probe.stdout + probe.stderr, new RegExp(`cannot call ${sim.url}/callback: ${named.source}`));
  t.notMatch(probe.stdout + probe.stderr, /longer --timeout|is the wallet up/);

  const report = await runHere(reportCommand(), ['--url', sim.url]);
  t.equal(report.code, 2);
  t.match(report.stderr, named);
  t.notMatch(report.stderr, /is wallet-sim running/);
});
