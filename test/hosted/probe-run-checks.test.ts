// A hosted probe run's checks as the run (GET, its event stream) lists them: the probe's own checks
// and the wallet checks, each failed, warned or skipped one with why, so the run's verdict, its
// counts and its signed report say the same thing. A probe check's warning is a warned check, as
// the CLI probe says it; a stopped run says why in the form's terms, and blames no wallet.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { loadSigner } from '../../src/evidence/signing-key.js';
import { parseEnvelope, verifyEnvelope } from '../../src/evidence/verify-evidence.js';
import { verifyReportCommand } from '../../src/commands/verify-report.js';
import { runHere } from '../helpers/run-here.js';
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

/** Starts a run of the tenant against `url` and waits for its end. */
async function probed(app: FastifyInstance, tenant: Created, url: string, apiKey = 'zoo-key') {
  const res = await app.inject({
    method: 'POST',
    url: `/t/${tenant.id}/probe`,
    headers: { ...bearer(tenant.token), 'content-type': 'application/json' },
    payload: { url, api_id: 'zoo', api_key: apiKey, user: 'player-1', currency: 'USD' },
  });
  if (res.statusCode !== 202) throw new Error(res.body);
  const { run } = res.json() as { run: string };
  return { run, ...(await ended(app, tenant, run)) };
}

t.test(
  'a wallet that creates unknown players: PASS with unknown-player warned, in the run, its events and its signed report',
  async (t) => {
    const zoo = await startZooWallet({ autoCreate: '500' });
    t.teardown(() => zoo.close());
    const pair = generateKeyPairSync('ed25519');
    const { app } = await buildHostedTestApp({ allowPrivateTargets: true, signer: loadSigner(pair.privateKey) });
    t.teardown(() => app.close());
    const a = await createTenant(app, { name: 'Acme' });
    const { run, ...done } = await probed(app, a, zoo.url);
    t.equal(done.verdict, 'PASS', 'a warning fails nothing');
    const warned = done.checks.filter((c) => c.status === 'warn');
    t.same(
      warned.map((c) => c.name),
      ['unknown-player'],
      'the warned check, as the CLI marks it WARN',
    );
    t.match(warned[0]?.message, /^the wallet answered R0 to a login of player-1-unknown-.*it creates unknown players/, 'with its warning');

    const events = await app.inject({ url: `/t/${a.id}/probe/${run}/events`, headers: bearer(a.token) });
    t.match(events.body, /event: check\ndata: \{"name":"unknown-player","status":"warn"/, 'its event says warn too');

    const signed = await app.inject({ url: `/t/${a.id}/probe/${run}/report?signed=true`, headers: bearer(a.token) });
    const { statement } = verifyEnvelope(parseEnvelope(JSON.stringify(signed.json().envelope), 'envelope'), pair.publicKey, 'pub.pem');
    t.same(statement.predicate.warnedTests, ['unknown-player'], 'a warned test of the signed report');
    t.notOk(statement.predicate.passedTests!.includes('unknown-player'), 'not a passed one');
    t.same(statement.predicate.failedTests, []);

    const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-probe-warn-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'probe.signed.json'), signed.body);
    writeFileSync(join(dir, 'key.pub.pem'), pair.publicKey.export({ type: 'spki', format: 'pem' }));
    const verified = await runHere(verifyReportCommand(), [join(dir, 'probe.signed.json'), '--public-key', join(dir, 'key.pub.pem')]);
    t.equal(verified.code, 0, verified.stderr);
    t.match(verified.stdout, /^warned checks: unknown-player$/m, 'verify-report prints it');
    t.match(verified.stdout, new RegExp(`^passed checks: ${done.checks.filter((c) => c.status === 'pass').length}$`, 'm'));
  },
);

t.test("a run the probe could not check: NOT_CHECKED, its check says the stop's reason in the form's fields, no fix", async (t) => {
  const zoo = await startZooWallet({});
  t.teardown(() => zoo.close());
  const { app } = await buildHostedTestApp({ allowPrivateTargets: true });
  t.teardown(() => app.close());
  const a = await createTenant(app, { name: 'Acme' });
  const cases: [string, string, string | undefined, RegExp][] = [
    ['a wrong Api-Key', zoo.url, 'not-the-key', /^credentials refused \(R2\): check api_id\/api_key$/],
    [
      'a wrong path',
      zoo.url.replace(/\/callback$/, '/nope'),
      undefined,
      /^HTTP 404 from .*\/nope: nothing answers callbacks at this path; check url/,
    ],
    ['a port fetch will not call', 'http://127.0.0.1:1/callback', undefined, /^cannot call .*: port 1 is one fetch refuses to call/],
  ];
  for (const [what, url, key, says] of cases) {
    const done = await probed(app, a, url, key);
    t.equal(done.verdict, 'NOT_CHECKED', `${what}: not checked`);
    t.same(
      done.checks.map((c) => c.name),
      ['login'],
      `${what}: one check, no list of failures`,
    );
    t.match(done.checks[0]!.message, says, `${what}: the stop's reason`);
    t.equal(done.checks[0]!.fix, undefined, `${what}: no fix for the wallet`);
  }
});

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
