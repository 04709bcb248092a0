import { Command } from 'commander';
import { AdminClient, AdminError } from '../verify/admin-client.js';
import { ExpectationsError, loadExpectations } from '../verify/expectations.js';
import { formatVerifyReport, verifyJUnit } from '../verify/report.js';
import { verify } from '../verify/verify.js';
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

interface VerifyOptions {
  url: string;
  expect: string;
  junit?: string;
  adminToken?: string;
  /** --token-file, read: the token itself. */
  tokenFile?: string;
}

export function verifyCommand(): Command {
  return usageErrorsExit2(markRequired(new Command('verify')))
    .description(
      'Check what a running simulator received against an expectations file; exit 1 when one does not hold, 2 when it cannot check',
    )
    .addOption(simulatorUrlOption())
    .requiredOption('--expect <file>', 'expectations file (schemas/expectations.schema.json)')
    .addOption(junitOption())
    .addOption(adminTokenOption())
    .addOption(tokenFileOption())
    .action(async (o: VerifyOptions) => {
      const startedAt = new Date().toISOString();
      const started = performance.now();
      try {
        if (o.junit !== undefined) checkWritable(o.junit, '--junit');
        const expectations = loadExpectations(o.expect);
        const outcome = await verify(expectations, new AdminClient(o.url, adminTokenOf(o)));
        console.log(formatVerifyReport(o.url, outcome));
        if (o.junit) writeOutput(o.junit, verifyJUnit(o.url, outcome, startedAt, (performance.now() - started) / 1000), '--junit');
        process.exitCode = outcome.results.every((r) => r.passed) ? 0 : 1;
      } catch (e) {
        if (!(e instanceof ExpectationsError || e instanceof AdminError || e instanceof OutputFileError)) throw e;
        console.error(`wallet-sim verify: ${e.message}`);
        process.exitCode = 2;
      }
    });
}
