import { Command } from 'commander';
import { MESSAGES } from '../text/messages.js';
import { bundledScenarios, resolveScenario } from '../kernel/paths.js';
import { loadScenarioFile, ScenarioError } from '../core/scenario/scenario.js';
import { checkProxyable, proxyWarnings } from '../core/scenario/proxy-check.js';
import { namesItsHelp } from './options.js';
import { deadRules, warningLines } from '../core/scenario/dead-rules.js';

export function validateCommand(): Command {
  return namesItsHelp(new Command('validate'))
    .description('Check scenario files; exit 1 naming file, JSON pointer and reason of each error')
    .argument('<files...>', 'scenario files, or names of bundled scenarios (as start --scenario takes)')
    .option('--proxy', 'also check that each scenario can run in proxy mode (start --upstream): no set_balance', false)
    .action((files: string[], options: { proxy: boolean }) => {
      let failed = false;
      for (const file of files) {
        try {
          const path = resolveScenario(file);
          if (path === undefined) {
            // As start --scenario words it: a file that is not there may be a bundled scenario's name mistyped.
            console.error(MESSAGES.SCENARIO_UNKNOWN(file, bundledScenarios(), ''));
            failed = true;
            continue;
          }
          const scenario = loadScenarioFile(path);
          if (options.proxy) checkProxyable(scenario, path);
          // Warned, not refused: a rule that can never fire loads as it always did.
          const proxied = options.proxy ? proxyWarnings(scenario) : [];
          for (const line of warningLines(file, [...deadRules(scenario.source), ...proxied])) console.error(line);
          console.log(MESSAGES.SCENARIO_OK(file, scenario.source.name));
        } catch (e) {
          if (!(e instanceof ScenarioError)) throw e;
          console.error(e.message);
          failed = true;
        }
      }
      process.exitCode = failed ? 1 : 0;
    });
}
