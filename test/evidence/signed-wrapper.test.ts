// A signed report saved as the ?signed=true routes answer it, `{ envelope, report }` (what the
// probe page saves, what `curl …?signed=true > file` keeps), given to verify-report as it is:
// valid and naming the tenant; one byte of the report inside, or of the signature, changed: not
// valid. And the note under a PASSED verdict that no check backs.
import { generateKeyPairSync } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { loadSigner } from '../../src/evidence/signing-key.js';
import { verifyReportCommand } from '../../src/commands/verify-report.js';
import { bet, buildTestApp, listen, login, result } from '../helpers/app.js';
import { bearer, buildHostedTestApp, callbackHeaders, createTenant, type Created } from '../helpers/hosted.js';
import { runHere } from '../helpers/run-here.js';
import { run } from '../helpers/spawn-cli.js';
import { ROOT } from '../../src/kernel/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-wrapper-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string) => join(dir, name);

const pair = generateKeyPairSync('ed25519');
const PUB = at('wallet-sim-signing.pub.pem');
writeFileSync(PUB, pair.publicKey.export({ type: 'spki', format: 'pem' }));
const verifyHere = (file: string, ...more: string[]) => runHere(verifyReportCommand(), [file, '--public-key', PUB, ...more]);
const NOTE = /\nnote: no check was exercised: this report certifies nothing yet; play a session .* and sign again\n/;

/** Saves a route's body unchanged, as curl > file does. */
function saved(name: string, body: string | Buffer): string {
  writeFileSync(at(name), body);
  return at(name);
}

/** The body with the character at `index` replaced by another of the same class (one byte changed). */
function oneByteChanged(body: string, index: number): string {
  const c = body[index]!;
  const other = c === '0' ? '1' : /[0-9]/.test(c) ? '0' : c === 'A' ? 'B' : 'A';
  return body.slice(0, index) + other + body.slice(index + 1);
}

let app: FastifyInstance;
let tenant: Created;
t.before(async () => {
  // Private targets allowed: the probed wallet below listens on loopback.
  ({ app } = await buildHostedTestApp({ signer: loadSigner(pair.privateKey), allowPrivateTargets: true }));
  tenant = await createTenant(app, { name: 'Acme Games' });
});
t.teardown(() => app.close());

const signedBody = async (url: string) => {
  const res = await app.inject({ url, headers: bearer(tenant.token) });
  if (res.statusCode !== 200) throw new Error(`GET ${url}: HTTP ${res.statusCode} ${res.body}`);
  return res.body;
};

t.test("a tenant's signed report with nothing played: valid, PASSED, and a note that it certifies nothing", async (t) => {
  const file = saved('empty.signed.json', await signedBody(`/t/${tenant.id}/admin/report?signed=true`));
  const ok = await verifyHere(file, '--tenant', tenant.id);
  t.equal(ok.code, 0, ok.stderr);
  t.match(ok.stdout, `valid: ${file} is signed by keyid `);
  t.match(ok.stdout, `and the report inside ${file} is the report it covers\n`);
  t.match(ok.stdout, /\nverdict: PASSED\n/, 'the verdict the statement carries, unchanged');
  t.match(ok.stdout, NOTE, 'under it, that nothing was checked');
  t.match(ok.stdout, /\npassed checks: 0\n$/);
  t.match(ok.stdout, `\ntenant: ${tenant.id} ("Acme Games")\n`);
});

t.test('the same route after a session: valid as saved, and any byte of the report or the signature changed is refused', async (t) => {
  const post = (payload: object) =>
    app.inject({ method: 'POST', url: `/t/${tenant.id}/callback`, headers: callbackHeaders(tenant), payload: JSON.stringify(payload) });
  const usd = { currency: 'USD' };
  await post(login('player-usd'));
  await post(bet('player-usd', 'G1', [['1', 'P', 10]], usd));
  await post(result('player-usd', 'G1', [['1', 'P', 10, 10]], usd));
  const body = await signedBody(`/t/${tenant.id}/admin/report?signed=true`);
  const file = saved('probe.signed.json', body);

  const ok = await verifyHere(file, '--tenant', tenant.id);
  t.equal(ok.code, 0, ok.stderr);
  t.match(ok.stdout, `\ntenant: ${tenant.id} ("Acme Games")\n`, 'names the tenant');
  t.notMatch(ok.stdout, /note:/, 'checks were exercised: no note');
  t.match(ok.stdout, /\npassed checks: [1-9]/);
  const other = await verifyHere(file, '--tenant', 'someone-else');
  t.equal(other.code, 1, "--tenant another's id: not valid");
  t.match(other.stderr, `NOT VALID: the report is tenant ${tenant.id}'s ("Acme Games"), not tenant someone-else's`);

  // The report travels as JSON text after the envelope (whose payload is base64): the session id
  // appears in the body only inside it.
  const session = (JSON.parse(JSON.parse(body).report) as { session: { id: string } }).session.id;
  const inReport = body.lastIndexOf(session);
  t.ok(inReport > body.indexOf('"report"'), 'the byte changed is in the embedded report');
  const edited = await verifyHere(saved('report-edited.signed.json', oneByteChanged(body, inReport)));
  t.equal(edited.code, 1, 'one byte of the report changed: exit 1');
  t.match(edited.stderr, /NOT VALID: the report inside .*report-edited\.signed\.json is not the report that was signed \(its sha256 is/);
  t.equal(edited.stdout, '', 'no verdict printed');

  const sig = body.indexOf('"sig":"') + '"sig":"'.length + 20;
  const badSig = await verifyHere(saved('sig-edited.signed.json', oneByteChanged(body, sig)));
  t.equal(badSig.code, 1, 'one byte of the signature changed: exit 1');
  t.match(badSig.stderr, /NOT VALID: the signature does not match the payload/);
  t.equal(badSig.stdout, '');

  const withReport = await verifyHere(file, '--report', at('whatever.json'));
  t.equal(withReport.code, 2, '--report beside a file that carries its report: cannot verify (2)');
  t.match(withReport.stderr, /carries the report it covers .*: leave --report out/);
  const reportObject = { ...JSON.parse(body), report: JSON.parse(JSON.parse(body).report) };
  const parsed = await verifyHere(saved('parsed.signed.json', JSON.stringify(reportObject)));
  t.equal(parsed.code, 2, 'the report re-serialised as an object: cannot verify (2)');
  t.match(parsed.stderr, /its "report" is a object, not the JSON text that was signed: save the body of the \?signed=true route unchanged/);

  // The built CLI, as the user ran it: the exit code and stdout of a process.
  const spawned = await run(['verify-report', file, '--public-key', PUB, '--tenant', tenant.id]);
  t.equal(spawned.code, 0, spawned.stderr);
  t.match(spawned.stdout, `tenant: ${tenant.id} ("Acme Games")`);
});

// A probe run costs ~4 s of a loaded machine; its body is the same SignedReport as the tenant
// report's above (both from signStatement), so the default run keeps those and the full matrix adds this.
const probeRun = process.env.WALLET_SIM_FULL_MATRIX ? t.test : t.skip;
probeRun("a probe run's signed report, as the probe page saves it: valid, naming the tenant and its checks", async (t) => {
  const target = await buildTestApp();
  t.teardown(() => target.app.close());
  const started = await app.inject({
    method: 'POST',
    url: `/t/${tenant.id}/probe`,
    headers: { ...bearer(tenant.token), 'content-type': 'application/json' },
    payload: { url: `${await listen(target.app)}/callback`, api_id: 'sandbox', api_key: 'sandbox-key', user: 'usd', currency: 'USD' },
  });
  t.equal(started.statusCode, 202, started.body);
  const { run } = started.json() as { run: string };
  // The run's event stream ends when the run does: waiting for it is waiting for the state.
  const events = await app.inject({ url: `/t/${tenant.id}/probe/${run}/events`, headers: bearer(tenant.token) });
  t.match(events.body, /event: end\ndata: \{"run":"[^"]+","state":"done"/);
  const file = saved(`probe-${run}.signed.json`, await signedBody(`/t/${tenant.id}/probe/${run}/report?signed=true`));
  const ok = await verifyHere(file, '--tenant', tenant.id);
  t.equal(ok.code, 0, ok.stderr);
  // (the target's default scenario creates the players it does not know: unknown-player passes with a warning)
  t.match(ok.stdout, /\nverdict: WARNED \(1 warned check\)\n/);
  t.match(ok.stdout, /\nwarned checks: unknown-player\n/);
  t.notMatch(ok.stdout, /note:/, 'its checks ran: no note');
  t.match(ok.stdout, `\ntenant: ${tenant.id} ("Acme Games")\n`);
});

t.test('a single-tenant wallet-sim answers GET /admin/report?signed=true in the same shape: verified as it is', async (t) => {
  const single = await buildTestApp({}, { signer: loadSigner(pair.privateKey) });
  t.teardown(() => single.app.close());
  const res = await single.app.inject({ url: '/admin/report?signed=true' });
  t.equal(res.statusCode, 200, 'the signed report', { body: res.body });
  const ok = await verifyHere(saved('single.signed.json', res.body));
  t.equal(ok.code, 0, ok.stderr);
  t.match(ok.stdout, NOTE, 'nothing played: the note');
  t.notMatch(ok.stdout, /\ntenant:/, 'no tenant named');
  const asTenant = await verifyHere(at('single.signed.json'), '--tenant', tenant.id);
  t.equal(asTenant.code, 1);
  t.match(asTenant.stderr, /the report names no tenant \(it comes from a single-tenant wallet-sim\)/);
});

t.test(
  "docs/evidence.md's command that takes the envelope and the report out of the file: verify-report and openssl accept them",
  async (t) => {
    const body = await signedBody(`/t/${tenant.id}/admin/report?signed=true`);
    saved('probe.signed.json', body);
    const doc = readFileSync(join(ROOT, 'docs/evidence.md'), 'utf8');
    const lines = doc.split('\n').filter((l) => l.includes('probe.signed.json') && /^(node|jq) /.test(l));
    const ways = [lines.filter((l) => l.startsWith('node ')), lines.filter((l) => l.startsWith('jq '))];
    t.same(
      ways.map((w) => w.length),
      [1, 2],
      'a node one-liner, and two jq lines (the envelope, the report)',
    );
    const hasJq = spawnSync('jq', ['--version']).status === 0;
    for (const way of hasJq ? ways : ways.slice(0, 1)) {
      rmSync(at('evidence.json'), { force: true });
      rmSync(at('evidence.report.json'), { force: true });
      execFileSync('sh', ['-c', way.join('\n')], { cwd: dir });
      t.equal(
        readFileSync(at('evidence.report.json'), 'utf8'),
        JSON.parse(body).report,
        `${way[0]!.slice(0, 4)}: the report, byte for byte`,
      );
      const ok = await verifyHere(at('evidence.json'));
      t.equal(ok.code, 0, ok.stderr);
      t.match(ok.stdout, /and .*evidence\.report\.json is the report it covers/);
    }
    // The OpenSSL steps that follow in the page, on the files taken out (where openssl and jq are installed).
    const opensslBlock = /Then, with OpenSSL 3 and `jq`:\n\n```sh\n([\s\S]*?)```/.exec(doc)?.[1];
    t.ok(opensslBlock, 'the OpenSSL steps');
    if (!hasJq || spawnSync('openssl', ['version']).status !== 0) return;
    const out = execFileSync('sh', ['-c', opensslBlock!.replaceAll('wallet-sim-signing.pub.pem', PUB)], { cwd: dir, encoding: 'utf8' });
    t.match(out, /Signature Verified Successfully/);
    const digests = out.match(/\b[0-9a-f]{64}\b/g) ?? [];
    t.same(
      digests,
      [JSON.parse(body).envelope.signatures[0].keyid, digests[2], digests[2]],
      "the keyid, then the report file's sha256 and the statement's digest: the same",
    );
  },
);
