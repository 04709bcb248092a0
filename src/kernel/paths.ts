import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root (the folder holding package.json), whether we run from src/ or dist/src/. */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('wallet-sim: cannot find package.json above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

export const ROOT = findRoot();
export const SCHEMAS_DIR = join(ROOT, 'schemas');
export const SCENARIOS_DIR = join(ROOT, 'scenarios');
export const DEFAULT_SCENARIO = join(SCENARIOS_DIR, 'default.json');

/** Names of the bundled scenarios (`--scenario flaky`), sorted. */
export function bundledScenarios(): string[] {
  return readdirSync(SCENARIOS_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

/**
 * The file `--scenario` means: a file that exists, else a bundled scenario of that name (with or
 * without `.json`); undefined when it is neither.
 */
export function resolveScenario(given: string): string | undefined {
  if (existsSync(given)) return given;
  const name = given.endsWith('.json') ? given.slice(0, -'.json'.length) : given;
  return bundledScenarios().includes(name) ? join(SCENARIOS_DIR, `${name}.json`) : undefined;
}
