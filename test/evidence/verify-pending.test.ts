// A signed report with a check still pending: verify-report tells it apart from a warning, for a
// statement that lists the pending checks and for an older one that does not (read from the
// report the digest covers). Pure files: a key made here, a report graded from a journal.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { verifyReportCommand } from '../../src/commands/verify-report.js';
import { signReport, signStatement } from '../../src/evidence/sign-report.js';
import { loadSigner } from '../../src/evidence/signing-key.js';
import { DEFAULT_THRESHOLDS, grade } from '../../src/grading/grade.js';
import type { ReportStatement } from '../../src/protocol/types.generated.js';
import { runHere } from '../helpers/run-here.js';
import { bet, journal, T0 } from '../grading/journal-builder.js';

const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-pending-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const pub = join(dir, 'key.pub.pem');
writeFileSync(pub, publicKey.export({ type: 'spki', format: 'pem' }));
const signer = loadSigner(privateKey);

// A bet before any login (LOGIN_BEFORE_BET, a warning, fails) whose round is younger than round_max_age_s (ROUNDS_SETTLED pending).
const report = grade(journal(bet('p1', 'b1', 0)), DEFAULT_THRESHOLDS, new Date(T0 + 10_000), 'default');
const signed = signReport(signer, report, { name: 'default' });

const verify = async (name: string, envelope: object, reportText: string) => {
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(envelope));
  writeFileSync(join(dir, `${name}.report.json`), reportText);
  return runHere(verifyReportCommand(), [join(dir, `${name}.json`), '--public-key', pub]);
};

t.test('the statement lists the pending checks apart; verify-report prints them apart from the warned ones', async (t) => {
  t.same(
    report.checks.filter((c) => c.status === 'pending').map((c) => c.id),
    ['ROUNDS_SETTLED'],
  );
  const statement = JSON.parse(Buffer.from(signed.envelope.payload, 'base64').toString()) as ReportStatement;
  t.same(statement.subject[0]?.annotations?.pending_checks, ['ROUNDS_SETTLED'], 'named in the annotations');
  t.same(statement.predicate.warnedTests, ['ROUNDS_SETTLED', 'LOGIN_BEFORE_BET'], 'the predicate as before');
  const ok = await verify('new', signed.envelope, signed.report);
  t.equal(ok.code, 0, ok.stderr);
  t.match(ok.stdout, /\nverdict: WARNED \(1 warned check, 1 check still pending\)\n/, 'why it warns, beside the verdict');
  t.match(ok.stdout, /\nwarned checks: LOGIN_BEFORE_BET\n/);
  t.match(ok.stdout, /\npending checks: ROUNDS_SETTLED \(a window was still open when signed/);
});

t.test('an older statement (no pending list) still verifies, its pending checks read from the signed report', async (t) => {
  const statement = JSON.parse(Buffer.from(signed.envelope.payload, 'base64').toString()) as ReportStatement;
  delete statement.subject[0]!.annotations!.pending_checks;
  const old = signStatement(signer, signed.report, statement);
  const ok = await verify('old', old.envelope, signed.report);
  t.equal(ok.code, 0, ok.stderr);
  t.match(ok.stdout, /\nwarned checks: LOGIN_BEFORE_BET\n/);
  t.match(ok.stdout, /\npending checks: ROUNDS_SETTLED \(/);
});

t.test('a report that cannot tell (not a wallet-sim report of checks): the warned list as signed, and a note', async (t) => {
  const statement = JSON.parse(Buffer.from(signed.envelope.payload, 'base64').toString()) as ReportStatement;
  delete statement.subject[0]!.annotations!.pending_checks;
  const text = '{"checks": "not a list"}\n';
  const { sha256 } = await import('../../src/evidence/statement.js');
  statement.subject[0]!.digest!.sha256 = sha256(text);
  const old = signStatement(signer, text, statement);
  const ok = await verify('opaque', old.envelope, text);
  t.equal(ok.code, 0, ok.stderr);
  t.match(ok.stdout, /\nverdict: WARNED \(see warned checks\)\n/);
  t.match(ok.stdout, /\nwarned checks: ROUNDS_SETTLED, LOGIN_BEFORE_BET \(failing warning checks and checks still pending/);
});

t.test('the checks never exercised are named, with how many of all: PASSED over a few is not read as all passed', async (t) => {
  const idle = report.checks.filter((c) => c.status === 'not_exercised').map((c) => c.id);
  t.ok(idle.length > 0 && idle.length < report.checks.length, 'some checks graded, some not');
  const ok = await verify('idle', signed.envelope, signed.report);
  t.equal(ok.code, 0, ok.stderr);
  t.match(
    ok.stdout,
    `\nnot exercised checks: ${idle.join(', ')} (${idle.length} of ${report.checks.length}: nothing in the session to grade them)\n`,
  );
  const graded = grade(journal(), DEFAULT_THRESHOLDS, new Date(T0), 'default');
  t.ok(graded.checks.every((c) => c.status === 'not_exercised'));
  const none = signReport(signer, graded, { name: 'default' });
  const empty = await verify('empty', none.envelope, none.report);
  t.match(empty.stdout, new RegExp(`\\nnot exercised checks: .* \\(${graded.checks.length} of ${graded.checks.length}: `));
});
