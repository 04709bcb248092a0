import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { markRequired, usageErrorsExit2 } from './options.js';
import { terminalText } from '../text/terminal-text.js';
import { count, noun } from '../text/plural.js';
import { PUBLIC_KEY_FILE, reportBeside } from '../evidence/beside.js';
import {
  checkReport,
  EvidenceProblem,
  parseEvidence,
  parsePublicKey,
  pendingChecks,
  subjectOf,
  verifyEnvelope,
} from '../evidence/verify-evidence.js';

interface VerifyReportOptions {
  publicKey: string;
  report?: string;
  /** A hosted tenant's id: the statement must name it (else exit 1). */
  tenant?: string;
}

/** A file's bytes, or an EvidenceProblem (unreadable) naming it and what to give instead. */
function read(path: string, what: string, hint: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory' : (code ?? 'cannot be read');
    throw new EvidenceProblem('unreadable', `cannot read the ${what} ${path}: ${why}; ${hint}`);
  }
}

const GIVE =
  'give the file that wallet-sim report --signed wrote, or the signed report a ?signed=true route or the probe page saved, unchanged';

/**
 * Said under the verdict when no check ran: a statement with no test in any list reads PASSED (the
 * statement's format, which other tools read, is not changed), and that is no certification.
 */
const NOTHING_EXERCISED =
  'note: no check was exercised: this report certifies nothing yet; ' +
  'play a session (wallet-sim report lists what each check needs) and sign again';

export function verifyReportCommand(): Command {
  // A usage error (no --public-key, no envelope) is "cannot verify" (2), never 1, which says "tampered".
  return usageErrorsExit2(
    markRequired(new Command('verify-report'))
      .description(
        'Check a signed report offline with the public key alone: the signature of the envelope and the digest of the report beside it (or inside it); ' +
          'exit 0 valid (prints verdict, scenario, session, failed checks), 1 tampered or signed by another key, 2 unreadable',
      )
      .argument(
        '<envelope>',
        'the envelope file written by wallet-sim report --signed (a DSSE envelope), ' +
          'or the signed report a ?signed=true route answers or the probe page saves ({ envelope, report }), as it is',
      )
      .requiredOption('--public-key <pem>', `the signer's public key (${PUBLIC_KEY_FILE}, from wallet-sim keygen)`)
      .option(
        '--report <file>',
        "the report the envelope covers (default: the envelope's name with .report.json for .json; not with a file that carries its report)",
      )
      .option('--tenant <id>', "a hosted tenant's id: the report must be that tenant's (exit 1 when the statement names another, or none)")
      .action((envelopeFile: string, o: VerifyReportOptions) => {
        try {
          const evidence = parseEvidence(read(envelopeFile, 'envelope', GIVE).toString('utf8'), envelopeFile);
          // A SignedReport file carries its report; a bare envelope has it beside it (or --report).
          if (evidence.report && o.report !== undefined)
            throw new EvidenceProblem(
              'unreadable',
              `${envelopeFile} carries the report it covers ({ envelope, report }): leave --report out, it is checked as it is`,
            );
          const reportFile = evidence.report ? `the report inside ${envelopeFile}` : (o.report ?? reportBeside(envelopeFile));
          const key = parsePublicKey(read(o.publicKey, 'public key', `give the signer's ${PUBLIC_KEY_FILE}`).toString('utf8'), o.publicKey);
          const { statement, keyid } = verifyEnvelope(evidence.envelope, key, o.publicKey);
          const report = evidence.report ?? read(reportFile, 'report', `give the report written beside the envelope with --report <file>`);
          checkReport(statement, report, reportFile);
          const p = statement.predicate;
          const a = subjectOf(statement)!.annotations ?? {};
          const scenario = p.configuration?.[0];
          const tenant = a.tenant_id === undefined ? undefined : { id: String(a.tenant_id), name: String(a.tenant_name) };
          if (o.tenant !== undefined && tenant?.id !== o.tenant)
            throw new EvidenceProblem(
              'invalid',
              tenant === undefined
                ? `the report names no tenant (it comes from a single-tenant wallet-sim), not tenant ${terminalText(o.tenant)}`
                : `the report is tenant ${terminalText(tenant.id)}'s ("${terminalText(tenant.name)}"), not tenant ${terminalText(o.tenant)}'s: ask that tenant for its own report`,
            );
          const exercised = [p.passedTests, p.warnedTests, p.failedTests].some((ids) => ids?.length);
          const pending = pendingChecks(statement, report);
          const list = (ids: string[] | undefined) => (ids?.length ? ids.join(', ') : 'none');
          console.log(
            [
              `valid: ${envelopeFile} is signed by keyid ${keyid} (${o.publicKey}) and ${reportFile} is the report it covers`,
              `verdict: ${p.result}${warnedWhy(p.result, p.warnedTests ?? [], pending)}`,
              ...(exercised ? [] : [NOTHING_EXERCISED]),
              ...(tenant ? [`tenant: ${terminalText(tenant.id)} ("${terminalText(tenant.name)}")`] : []),
              `scenario: ${scenario?.name ?? '?'} (sha256 ${scenario?.digest?.sha256 ?? '?'})`,
              `session: ${String(a.session_id)}, seed ${String(a.seed)}, ${String(a.started_at)} → ${String(a.ended_at)}` +
                (a.user_id === undefined ? '' : `, player ${String(a.user_id)} only`) +
                (a.upstream === undefined ? '' : `, upstream ${JSON.stringify(a.upstream)}`),
              `failed checks: ${list(p.failedTests)}`,
              ...warnedLines(p.warnedTests ?? [], pending),
              ...notExercisedLines(p, report),
              `passed checks: ${p.passedTests?.length ?? 0}`,
            ].join('\n'),
          );
          process.exitCode = 0;
        } catch (e) {
          if (!(e instanceof EvidenceProblem)) throw e;
          console.error(
            e.kind === 'invalid'
              ? `wallet-sim verify-report: NOT VALID: ${e.message}`
              : `wallet-sim verify-report: cannot verify: ${e.message}`,
          );
          process.exitCode = e.kind === 'invalid' ? 1 : 2;
        }
      }),
  );
}

/**
 * Why a WARNED verdict warns, beside it: warned checks (a failing warning check, a probe check
 * passed with a warning), checks still pending, or both.
 */
function warnedWhy(result: string, warned: string[], pending: string[] | undefined): string {
  if (result !== 'WARNED') return '';
  if (pending === undefined) return ' (see warned checks)';
  const failing = warned.filter((id) => !pending.includes(id)).length;
  const open = warned.length - failing;
  const parts = [failing && count(failing, noun('warned check')), open && `${count(open, noun('check'))} still pending`];
  const said = parts.filter(Boolean);
  return said.length ? ` (${said.join(', ')})` : '';
}

/**
 * The warned checks, the pending ones apart (a window still open when signed is no warning: the
 * verdict may change); all together, said so, when the evidence cannot tell them apart.
 */
function warnedLines(warned: string[], pending: string[] | undefined): string[] {
  const list = (ids: string[]) => (ids.length ? ids.join(', ') : 'none');
  if (pending === undefined)
    return [
      `warned checks: ${list(warned)}${warned.length ? ' (failing warning checks and checks still pending: this evidence does not tell them apart)' : ''}`,
    ];
  return [
    `warned checks: ${list(warned.filter((id) => !pending.includes(id)))}`,
    ...(pending.length
      ? [
          `pending checks: ${pending.join(', ')} (a window was still open when signed: the verdict may still change; wait with report --wait and sign again)`,
        ]
      : []),
  ];
}

/**
 * The report's checks in none of the statement's lists: never exercised (the session gave them
 * nothing to grade, or a probe run did not judge them). Named, so a PASSED over 5 checks of 14 is
 * not read as 14 passed. Read from the report (its digest is checked by now); none when it lists no checks.
 */
function notExercisedLines(p: { passedTests?: string[]; warnedTests?: string[]; failedTests?: string[] }, report: Buffer): string[] {
  let doc: { checks?: unknown; walletChecks?: unknown };
  try {
    doc = JSON.parse(report.toString('utf8')) as typeof doc;
  } catch {
    return [];
  }
  if (!Array.isArray(doc?.checks)) return [];
  const listed = [...doc.checks, ...(Array.isArray(doc.walletChecks) ? doc.walletChecks : [])] as { id?: unknown }[];
  const graded = new Set([...(p.passedTests ?? []), ...(p.warnedTests ?? []), ...(p.failedTests ?? [])]);
  const ids = listed.flatMap((c) => (typeof c?.id === 'string' && !graded.has(c.id) ? [terminalText(c.id)] : []));
  return [
    `not exercised checks: ${ids.length ? `${ids.join(', ')} (${ids.length} of ${listed.length}: nothing in the session to grade them)` : 'none'}`,
  ];
}
