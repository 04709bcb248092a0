// A hosted probe run's checks as the run (GET, its event stream) lists them: the probe's own checks
// and the wallet checks, each failed, warned or skipped one with why, so the run's verdict, its
// counts and its signed report say the same thing.
import { generateKeyPairSync } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { loadSigner } from '../../src/evidence/signing-key.js';
import { parseEnvelope, verifyEnvelope } from '../../src/evidence/verify-evidence.js';
import { startZooWallet } from '../wallets/zoo-wallet.js';
import { bearer, buildHostedTestApp, createTenant, type Created } from '../helpers/hosted.js';

interface Line {
  name: string;
  status: string;
  side: string;
  message?: string;
  fix?: string;
  duration_ms?: number;
}

/** Waits for the run to end (generously: the machine may be loaded). */
async function ended(app: FastifyInstance, tenant: Created, run: string): Promise<{ verdict: string; checks: Line[] }> {
  const until = Date.now() + 180_000;
  for (;;) {
    const body = (await app.inject({ url: `/t/${tenant.id}/probe/${run}`, headers: bearer(tenant.token) })).json();
    if (body.state !== 'running') return body;
    if (Date.now() > until) throw new Error(`run ${run} still going`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

t.test('a wallet that fails a wallet check only: FAIL, and the run lists that check with its message and fix', async (t) => {
  const zoo = await startZooWallet({ defect: 'settle-winloss-only' });
  t.teardown(() => zoo.close());
  const pair = generateKeyPairSync('ed25519');
  const { app } = await buildHostedTestApp({ allowPrivateTargets: true, signer: loadSigner(pair.privateKey) });
  t.teardown(() => app.close());
  const a = await createTenant(app, { name: 'Acme' });
  const res = await app.inject({
    method: 'POST',
    url: `/t/${a.id}/probe`,
    headers: { ...bearer(a.token), 'content-type': 'application/json' },
    payload: { url: zoo.url, api_id: 'zoo', api_key: 'zoo-key', user: 'player-1', currency: 'USD' },
  });
  t.equal(res.statusCode, 202, res.body);
  const { run } = res.json() as { run: string };
  const done = await ended(app, a, run);
  t.equal(done.verdict, 'FAIL');

  const failed = done.checks.filter((c) => c.status === 'fail');
  t.same(
    failed.map((c) => c.name),
    ['WALLET_BALANCE_EXACT'],
    'the failing wallet check is in the run',
  );
  t.equal(failed[0]!.side, 'wallet');
  t.match(failed[0]!.message, /\S/, 'with what went wrong');
  t.match(failed[0]!.fix, /\S/, 'and what to change');
  t.equal(failed[0]!.duration_ms, undefined, 'a wallet check has no time of its own');
  for (const c of done.checks.filter((c) => c.status === 'skip')) t.match(c.message, /\S/, `${c.name} skipped, saying why`);
  t.ok(
    done.checks.filter((c) => c.side === 'probe').every((c) => typeof c.duration_ms === 'number'),
    "the probe's checks keep their time",
  );

  const signed = await app.inject({ url: `/t/${a.id}/probe/${run}/report?signed=true`, headers: bearer(a.token) });
  const { statement } = verifyEnvelope(parseEnvelope(JSON.stringify(signed.json().envelope), 'envelope'), pair.publicKey, 'pub.pem');
  const names = (s: string) => done.checks.filter((c) => c.status === s).map((c) => c.name);
  t.same(names('fail'), statement.predicate.failedTests, 'the same failed checks as the signed report');
  t.same(names('warn'), statement.predicate.warnedTests ?? [], 'the same warned checks');
  t.same(names('pass'), statement.predicate.passedTests, 'the same passed checks');

  const events = await app.inject({ url: `/t/${a.id}/probe/${run}/events`, headers: bearer(a.token) });
  t.equal(events.body.match(/^event: check$/gm)?.length, done.checks.length, 'one event per check, the wallet checks included');
  t.match(events.body, /event: check\ndata: \{"name":"WALLET_BALANCE_EXACT","status":"fail"/);
});
