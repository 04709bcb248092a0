import { count, noun } from '../text/plural.js';
import { Command, InvalidArgumentError, Option } from 'commander';
import { setTimeout as sleep } from 'node:timers/promises';
import { type FailOn, formatJUnit, formatText, runFails } from '../grading/format.js';
import { formatHtml } from '../grading/format-html.js';
import type { DsseEnvelope, Report } from '../protocol/types.generated.js';
import { reportBeside } from '../evidence/beside.js';
import { terminalText } from '../text/terminal-text.js';
import { AdminClient, AdminError } from '../verify/admin-client.js';
import {
  adminTokenOf,
  adminTokenOption,
  tokenFileOption,
  junitOption,
  markRequired,
  usageErrorsExit2,
  simulatorUrlOption,
} from './options.js';
import { checkWritable, OutputFileError, writeOutput } from './output-file.js';

interface ReportOptions {
  url: string;
  user?: string;
  junit?: string;
  html?: string;
  failOn: FailOn;
  wait?: number;
  adminToken?: string;
  /** --token-file, read: the token itself. */
  tokenFile?: string;
  signed?: string;
}

const FAIL_ON = ['error', 'warning', 'pending', 'not_exercised', 'findings'];

/** `--fail-on warning,pending`: a comma list of FAIL_ON's levels. */
function failOnList(value: string): FailOn {
  const levels = value.split(',').map((s) => s.trim());
  const bad = levels.filter((l) => !FAIL_ON.includes(l));
  if (bad.length || !levels.length) throw new InvalidArgumentError(`takes a comma list of ${FAIL_ON.join(', ')} (got "${value}")`);
  return levels.join(',');
}

const seconds = (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 86_400) throw new InvalidArgumentError('must be a number of seconds from 0 to 86400');
  return n;
};

/** Reads the report until no check is pending or `waitS` seconds have passed, saying on stderr what it waits for. */
async function readReport(client: AdminClient, user: string | undefined, waitS: number | undefined, failOn: FailOn): Promise<Report> {
  const until = performance.now() + (waitS ?? 0) * 1000;
  let said = '';
  for (;;) {
    const report = await client.report(user);
    const pending = report.checks.filter((c) => c.status === 'pending');
    const left = until - performance.now();
    if (!pending.length || waitS === undefined || left <= 0) {
      if (pending.length && waitS !== undefined)
        console.error(
          `wallet-sim report: waited ${waitS} s; still pending: ${pending.map((c) => c.id).join(', ')}; ` +
            (failOn.split(',').includes('pending')
              ? 'the run fails on them (--fail-on pending)'
              : 'pending fails no run: --fail-on pending fails it, a longer --wait lets their windows close'),
        );
      return report;
    }
    // Said when what it waits for changes, not at every poll.
    const what = pending.map((c) => `${c.id} (${c.detail ?? ''})`).join('; ');
    if (what !== said)
      console.error(
        `wallet-sim report: waiting for ${count(pending.length, noun('pending check'))} (${Math.ceil(left / 1000)} s left): ${what}`,
      );
    said = what;
    await sleep(Math.min(1000, left));
  }
}

/** How many of the players seen the line names, the latest first; and how far back in the journal it looks for them. */
const SEEN_NAMED = 5;
const SEEN_LOOKED_AT = 1000;

/**
 * Why `--user` cannot be graded, when the session has no callback of that player: its report is
 * every check not exercised, which would exit 0, so a player misspelt in CI would pass. Said with
 * the players the session did see. undefined when the player was seen (or something was graded).
 */
async function unseenPlayer(client: AdminClient, user: string, report: Report): Promise<string | undefined> {
  const graded =
    report.checks.some((c) => c.status !== 'not_exercised') || report.open_rounds.length || Object.keys(report.findings).length;
  if (graded || (await client.journal(new URLSearchParams({ user_id: user, limit: '1' }))).length) return undefined;
  // Its callbacks may have left a bounded journal (--journal-size): a player the wallet holds is no typo.
  if (await client.player(user)) return undefined;
  const recent = await client.journal(new URLSearchParams({ limit: String(SEEN_LOOKED_AT) }));
  const seen = [...new Set(recent.reverse().flatMap((e) => (e.user_id === undefined ? [] : [e.user_id])))];
  const named =
    seen.slice(0, SEEN_NAMED).map(terminalText).join(', ') + (seen.length > SEEN_NAMED ? ` and ${seen.length - SEEN_NAMED} more` : '');
  return seen.length
    ? `--user ${terminalText(user)}: the session has no callback of that player, so there is nothing to grade; ` +
        `it has callbacks of ${named}: give one of them, or leave --user out to grade every player`
    : `--user ${terminalText(user)}: the session has no callback of any player yet: play a session first, or leave --user out`;
}

/** The files asked for, by the option naming each (--signed names two: the envelope and the report beside it). */
const outputsOf = (o: ReportOptions): [string, string][] => [
  ...(o.junit === undefined ? [] : [['--junit', o.junit] as [string, string]]),
  ...(o.html === undefined ? [] : [['--html', o.html] as [string, string]]),
  ...(o.signed === undefined ? [] : [['--signed', o.signed] as [string, string], ['--signed', reportBeside(o.signed)] as [string, string]]),
];

/** The envelope to `file` (any DSSE tool reads it) and the report's exact bytes beside it. */
function writeSigned(file: string, signed: { envelope: DsseEnvelope; text: string }): void {
  const beside = reportBeside(file);
  writeOutput(file, `${JSON.stringify(signed.envelope, null, 2)}\n`, '--signed');
  writeOutput(beside, signed.text, '--signed');
  console.error(
    `wallet-sim report: signed: wrote the envelope to ${file} and the report it covers to ${beside} ` +
      `(keyid ${signed.envelope.signatures[0].keyid}); check them with wallet-sim verify-report ${file} --public-key <the signer's .pub.pem>`,
  );
}

export function reportCommand(): Command {
  return usageErrorsExit2(markRequired(new Command('report')))
    .description(
      "Grade how the provider's client behaved across callbacks (GET /admin/report): print the checklist, write JUnit and HTML; exit 0 when no check fails, 1 when one does, 2 when the simulator cannot be read",
    )
    .addOption(simulatorUrlOption())
    .option('--user <id>', "grade only this player's callbacks")
    .addOption(junitOption('also write JUnit XML (one test case per check)'))
    .option('--html <file>', 'also write a self-contained HTML page (to attach to a certification ticket)')
    .addOption(
      new Option(
        '--fail-on <list>',
        "what else fails the run, a comma list: warning (a failing warning check), pending (a check whose window is still open), not_exercised (a check nothing exercised), findings (a callback refused for the caller's error: R2/R3 findings); failing errors always fail",
      )
        .argParser(failOnList)
        .default('error'),
    )
    .addOption(
      new Option(
        '--wait <seconds>',
        'first wait until no check is pending (polling once a second, progress on stderr), at most this long',
      ).argParser(seconds),
    )
    .option(
      '--signed <file>',
      'ask for the report signed (needs start --signing-key): write the DSSE envelope to <file> and the report it covers beside it (<file> with .report.json for .json), for verify-report',
    )
    .addOption(adminTokenOption())
    .addOption(tokenFileOption())
    .action(async (o: ReportOptions) => {
      const started = performance.now();
      const url = o.url.replace(/\/+$/, '');
      let report: Report;
      let signed: Awaited<ReturnType<AdminClient['signedReport']>> | undefined;
      try {
        for (const [flag, file] of outputsOf(o)) checkWritable(file, flag);
      } catch (e) {
        if (!(e instanceof OutputFileError)) throw e;
        console.error(`wallet-sim report: ${e.message}; nothing was read`);
        process.exitCode = 2;
        return;
      }
      try {
        const client = new AdminClient(url, adminTokenOf(o));
        report = await readReport(client, o.user, o.wait, o.failOn);
        const unseen = o.user === undefined ? undefined : await unseenPlayer(client, o.user, report);
        if (unseen !== undefined) {
          console.error(`wallet-sim report: ${unseen}`);
          process.exitCode = 2;
          return;
        }
        if (o.signed !== undefined) {
          // Read once more, signed: the checklist printed is the report the envelope covers.
          signed = await client.signedReport(o.user);
          report = signed.report;
        }
      } catch (e) {
        if (!(e instanceof AdminError) && !(e instanceof SyntaxError)) throw e;
        // Asked only when nothing answered: a server that answered (401, 403, 404…) is running, its answer says what to do.
        const why =
          e instanceof SyntaxError
            ? `${e.message}; is ${url} a wallet-sim?`
            : e.message.replace(/; is wallet-sim running there\?$/, `; is wallet-sim running at ${url}?`);
        console.error(`wallet-sim report: cannot read the report: ${why}`);
        process.exitCode = 2;
        return;
      }
      console.log(formatText(report, { url, failOn: o.failOn, colour: process.stdout.isTTY === true && !process.env.NO_COLOR }));
      try {
        if (o.junit)
          writeOutput(o.junit, formatJUnit(report, { url, failOn: o.failOn, seconds: (performance.now() - started) / 1000 }), '--junit');
        if (o.html) writeOutput(o.html, formatHtml(report, { url, failOn: o.failOn }), '--html');
        if (signed && o.signed !== undefined) writeSigned(o.signed, signed);
      } catch (e) {
        if (!(e instanceof OutputFileError)) throw e;
        console.error(`wallet-sim report: ${(e as Error).message}`);
        process.exitCode = 2;
        return;
      }
      process.exitCode = runFails(report, o.failOn) ? 1 : 0;
    });
}
