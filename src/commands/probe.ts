import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { runProbe } from '../probe/battery.js';
import { defaultScale } from '../probe/currency.js';
import { apiIdOption, apiKeyOption, callbackUrlOption, int, junitOption, markRequired, timeoutOption } from './options.js';
import { formatCheck, formatProbeHeader, formatProbeSummary, probeJUnit } from '../probe/report.js';

interface ProbeOptions {
  url: string;
  apiId: string;
  apiKey: string;
  user: string;
  currency: string;
  decimals?: number;
  timeout: number;
  junit?: string;
}

export function probeCommand(): Command {
  return markRequired(new Command('probe'))
    .description("Play the provider's side against any wallet's callback URL with a standard battery of checks; exit 1 when one fails")
    .addOption(callbackUrlOption())
    .addOption(apiIdOption().makeOptionMandatory())
    .addOption(apiKeyOption().makeOptionMandatory())
    .requiredOption(
      '--user <user_id>',
      'the only player the probe touches (it needs at least 2 units of balance; every round it opens is settled)',
    )
    .option('--currency <code>', "the player's currency", 'USD')
    .option('--decimals <n>', 'fraction digits of the currency (default: ISO 4217, e.g. 2 for USD, 0 for KRW)', int(0, 18))
    .addOption(timeoutOption())
    .addOption(junitOption())
    .action(async (o: ProbeOptions) => {
      const target = {
        url: o.url,
        apiId: o.apiId,
        apiKey: o.apiKey,
        user: o.user,
        currency: o.currency,
        scale: o.decimals ?? defaultScale(o.currency),
        timeoutMs: o.timeout,
      };
      // Each check is printed as it finishes: against a slow wallet the battery takes a while.
      console.log(formatProbeHeader(target));
      const report = await runProbe(target, (check) => console.log(formatCheck(check)));
      console.log(formatProbeSummary(report));
      if (o.junit) writeFileSync(o.junit, probeJUnit(report));
      process.exitCode = report.checks.some((c) => c.status === 'fail') ? 1 : 0;
    });
}
