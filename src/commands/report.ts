import { writeFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { type FailOn, failsRun, formatHtml, formatJUnit, formatText } from '../grading/format.js';
import type { Report } from '../protocol/types.generated.js';
import { AdminClient, AdminError } from '../verify/admin-client.js';
import { adminTokenOption, junitOption, markRequired, simulatorUrlOption } from './options.js';

interface ReportOptions {
  url: string;
  user?: string;
  junit?: string;
  html?: string;
  failOn: FailOn;
  adminToken?: string;
}

export function reportCommand(): Command {
  return markRequired(new Command('report'))
    .description(
      "Grade how the provider's client behaved across callbacks (GET /admin/report): print the checklist, write JUnit and HTML; exit 0 when no check fails, 1 when one does, 2 when the simulator cannot be read",
    )
    .addOption(simulatorUrlOption())
    .option('--user <id>', "grade only this player's callbacks")
    .addOption(junitOption('also write JUnit XML (one test case per check)'))
    .option('--html <file>', 'also write a self-contained HTML page (to attach to a certification ticket)')
    .addOption(
      new Option('--fail-on <severity>', 'lowest severity of a failing check that fails the run')
        .choices(['error', 'warning'])
        .default('error'),
    )
    .addOption(adminTokenOption())
    .action(async (o: ReportOptions) => {
      const started = performance.now();
      const url = o.url.replace(/\/+$/, '');
      let report: Report;
      try {
        report = await new AdminClient(url, o.adminToken).report(o.user);
      } catch (e) {
        if (!(e instanceof AdminError) && !(e instanceof SyntaxError)) throw e;
        const why = e.message.replace(/; is wallet-sim running there\?$/, '');
        // A reply that already says what to do (a callback URL given) needs no guess appended.
        const guess = /--url wants/.test(why) ? '' : `; is wallet-sim running at ${url}?`;
        console.error(`wallet-sim report: cannot read the report: ${why}${guess}`);
        process.exitCode = 2;
        return;
      }
      console.log(formatText(report, { url, failOn: o.failOn, colour: process.stdout.isTTY === true && !process.env.NO_COLOR }));
      try {
        if (o.junit) writeFileSync(o.junit, formatJUnit(report, { url, failOn: o.failOn, seconds: (performance.now() - started) / 1000 }));
        if (o.html) writeFileSync(o.html, formatHtml(report, { url, failOn: o.failOn }));
      } catch (e) {
        console.error(`wallet-sim report: ${(e as Error).message}`);
        process.exitCode = 2;
        return;
      }
      process.exitCode = report.checks.some((c) => failsRun(c, o.failOn)) ? 1 : 0;
    });
}
