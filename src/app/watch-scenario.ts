import { watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { loadScenarioFile, ScenarioError } from '../core/scenario/scenario.js';
import type { Simulator } from '../core/simulator.js';

/** Reloads the scenario on change; an invalid edit is logged and the old scenario stays. */
export function watchScenario(
  file: string,
  sim: Simulator,
  log: { info: (o: object, m: string) => void; error: (o: object, m: string) => void },
): void {
  let timer: NodeJS.Timeout | undefined;
  // Watch the folder, not the file: editors that save by rename replace the file's inode.
  watch(dirname(file), (_event, name) => {
    if (name !== null && name !== basename(file)) return;
    clearTimeout(timer);
    // Editors write in several steps; settle first.
    timer = setTimeout(() => {
      try {
        const next = loadScenarioFile(file);
        sim.setScenario(next).then(
          () => log.info({ scenario: next.source.name }, `scenario reloaded from ${file}`),
          (e: Error) => log.error({ err: e }, `scenario reload from ${file} failed: ${e.message}`),
        );
      } catch (e) {
        const problems = e instanceof ScenarioError ? e.problems : [{ pointer: '', message: (e as Error).message }];
        log.error({ problems }, `scenario edit rejected, the old scenario stays:\n${(e as Error).message}`);
      }
    }, 100);
  }).unref();
}
