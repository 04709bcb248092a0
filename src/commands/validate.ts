import { Command } from 'commander';
import { MESSAGES } from '../messages.js';
import { resolveScenario } from '../paths.js';
import { loadScenarioFile, ScenarioError } from '../scenario/scenario.js';

export function validateCommand(): Command {
  return new Command('validate')
    .description('Check scenario files; exit 1 naming file, JSON pointer and reason of each error')
    .argument('<files...>', 'scenario files, or names of bundled scenarios (as start --scenario takes)')
    .action((files: string[]) => {
      let failed = false;
      for (const file of files) {
        try {
          console.log(MESSAGES.SCENARIO_OK(file, loadScenarioFile(resolveScenario(file) ?? file).source.name));
        } catch (e) {
          if (!(e instanceof ScenarioError)) throw e;
          console.error(e.message);
          failed = true;
        }
      }
      process.exitCode = failed ? 1 : 0;
    });
}
