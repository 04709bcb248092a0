import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../src/paths.js';

export const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The text of the README section with this `## ` title, up to the next one. */
export function readmeSection(title: string): string {
  const start = README.indexOf(`## ${title}\n`);
  if (start < 0) throw new Error(`README.md has no section "${title}"`);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

/** The ```sh blocks of a section. */
export const shBlocks = (section: string): string[] => [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);

/** The bodies the README's "One callback of each kind" sends with curl -d (login, bet, bet_result, R4), $NOW given. */
export function readmeCallbacks(now: number): string[] {
  return [...readmeSection('One callback of each kind').matchAll(/-d '((?:[^']|'\$NOW')*)'/g)].map((m) =>
    m[1]!.replaceAll("'$NOW'", String(now)),
  );
}
