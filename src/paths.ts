import { existsSync } from 'node:fs';
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
