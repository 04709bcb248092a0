import { writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_TIMEOUT_MS } from '../client/http.js';
import { runProbe } from '../probe/battery.js';
import { defaultScale } from '../probe/currency.js';
import { httpUrl, markRequired } from './options.js';
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

const int = (min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`must be an integer from ${min} to ${max}`);
  return n;
};

export function probeCommand(): Command {
  return markRequired(new Command('probe'))
    .description("Play the provider's side against any wallet's callback URL with a standard battery of checks; exit 1 when one fails")
    .requiredOption('--url <url>', "the receiver's callback URL, e.g. http://127.0.0.1:8080/callback", httpUrl('http://127.0.0.1:8080/callback'))
    .addOption(new Option('--api-id <id>', 'Api-Id to send').env('WALLET_SIM_API_ID').makeOptionMandatory())
    .addOption(new Option('--api-key <key>', 'Api-Key to send').env('WALLET_SIM_API_KEY').makeOptionMandatory())
    .requiredOption('--user <user_id>', 'the only player the probe touches (it needs at least 2 units of balance; every round it opens is settled)')
    .option('--currency <code>', "the player's currency", 'USD')
    .option('--decimals <n>', 'fraction digits of the currency (default: ISO 4217, e.g. 2 for USD, 0 for KRW)', int(0, 18))
    .option('--timeout <ms>', 'how long to wait for each reply', int(1, 600_000), DEFAULT_TIMEOUT_MS)
    .option('--junit <file>', 'also write a JUnit XML report')
    .action(async (o: ProbeOptions) => {
      const target = { url: o.url, apiId: o.apiId, apiKey: o.apiKey, user: o.user, currency: o.currency, scale: o.decimals ?? defaultScale(o.currency), timeoutMs: o.timeout };
      // Each check is printed as it finishes: against a slow wallet the battery takes a while.
      console.log(formatProbeHeader(target));
      const report = await runProbe(target, (check) => console.log(formatCheck(check)));
      console.log(formatProbeSummary(report));
      if (o.junit) writeFileSync(o.junit, probeJUnit(report));
      process.exitCode = report.checks.some((c) => c.status === 'fail') ? 1 : 0;
    });
}
