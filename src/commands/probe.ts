import { Command } from 'commander';
import { runProbe } from '../probe/battery.js';
import { defaultScale } from '../probe/currency.js';
import { formatProbeHtml } from '../probe/format-html.js';
import { formatCheck, formatProbeHeader, formatProbeSummary, probeExitCode, probeJUnit } from '../probe/report.js';
import { DEFAULT_CLIENT_TIMEOUT_MS } from '../probe/wire.js';
import {
  apiIdOption,
  apiKeyOption,
  callbackUrlOption,
  int,
  junitOption,
  markRequired,
  usageErrorsExit2,
  timeoutOption,
} from './options.js';
import { checkWritable, OutputFileError, writeOutput } from './output-file.js';

interface ProbeOptions {
  url: string;
  apiId: string;
  apiKey: string;
  user: string;
  currency: string;
  decimals?: number;
  timeout: number;
  clientTimeout: number;
  junit?: string;
  html?: string;
}

export function probeCommand(): Command {
  return usageErrorsExit2(markRequired(new Command('probe')))
    .description(
      "Play the provider's side against any wallet's callback URL and certify the wallet: exit 0 when it passes, 1 when a check fails, 2 when it could not be checked",
    )
    .addOption(callbackUrlOption())
    .addOption(apiIdOption().makeOptionMandatory())
    .addOption(apiKeyOption().makeOptionMandatory())
    .requiredOption(
      '--user <user_id>',
      'the player the probe plays (it needs at least 4 units of balance; every round it opens is settled)',
    )
    .option('--currency <code>', "the player's currency", 'USD')
    .option('--decimals <n>', 'fraction digits of the currency (default: ISO 4217, e.g. 2 for USD, 0 for KRW)', int(0, 18))
    .addOption(timeoutOption('how long the probe waits for a reply before it takes it as lost and resends'))
    .option(
      '--client-timeout <ms>',
      "the provider's declared time-out: a reply slower than this fails WALLET_ANSWERS_IN_TIME",
      int(1, 600_000),
      DEFAULT_CLIENT_TIMEOUT_MS,
    )
    .addOption(junitOption('also write a JUnit XML report (one test case per check)'))
    .option('--html <file>', 'also write an HTML report (one self-contained file, the request and reply of each failure)')
    .action(async (o: ProbeOptions) => {
      const empty = (['apiId', 'apiKey'] as const).find((k) => o[k] === '');
      if (empty) {
        const flag = empty === 'apiId' ? '--api-id' : '--api-key';
        console.error(
          `wallet-sim probe: ${flag} is empty (a shell variable not set?): give the credentials the wallet expects of the provider; nothing was sent`,
        );
        process.exitCode = 2;
        return;
      }
      const target = {
        url: o.url,
        apiId: o.apiId,
        apiKey: o.apiKey,
        user: o.user,
        currency: o.currency,
        scale: o.decimals ?? defaultScale(o.currency),
        timeoutMs: o.timeout,
        clientTimeoutMs: o.clientTimeout,
      };
      // The report files are checked first: a long run is not lost to a path that cannot be written.
      const outputs = [
        ['--junit', o.junit],
        ['--html', o.html],
      ] as const;
      try {
        for (const [flag, file] of outputs) if (file !== undefined) checkWritable(file, flag);
      } catch (e) {
        if (!(e instanceof OutputFileError)) throw e;
        console.error(`wallet-sim probe: ${e.message}; nothing was sent`);
        process.exitCode = 2;
        return;
      }
      if (o.timeout < o.clientTimeout)
        console.error(
          `wallet-sim probe: --timeout ${o.timeout} is shorter than --client-timeout ${o.clientTimeout}: a reply later than ` +
            `${o.timeout} ms is taken as lost and resent, though in time for the provider, and WALLET_ANSWERS_IN_TIME does not ` +
            'judge it; give --timeout at least --client-timeout to judge the wallet as your provider waits',
        );
      // Each check is printed as it finishes: against a slow wallet the battery takes a while.
      console.log(formatProbeHeader(target));
      const report = await runProbe(target, (check) => console.log(formatCheck(check)));
      console.log(formatProbeSummary(report));
      try {
        if (o.junit) writeOutput(o.junit, probeJUnit(report), '--junit');
        if (o.html) writeOutput(o.html, formatProbeHtml(report), '--html');
      } catch (e) {
        if (!(e instanceof OutputFileError)) throw e;
        console.error(`wallet-sim probe: ${e.message} (the results are printed above)`);
        process.exitCode = 2;
        return;
      }
      process.exitCode = probeExitCode(report);
    });
}
