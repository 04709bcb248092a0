import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../src/kernel/paths.js';

/** A documentation file of the repository (README.md, CONTRIBUTING.md, docs/…), as text. */
export const doc = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

export const README = doc('README.md');

/** Every Markdown page the project ships or links: README.md, CONTRIBUTING.md and docs/*.md (docs/spec too). */
export function markdownPages(): string[] {
  const docs = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? docs(`${dir}/${e.name}`) : e.name.endsWith('.md') ? [`${dir}/${e.name}`] : [],
    );
  return ['README.md', 'CONTRIBUTING.md', ...docs('docs')];
}

/** The text of the section of `text` with this heading (`## title`, or `### title`…), up to the next heading of its level or above. */
export function section(text: string, title: string, level = 2): string {
  const hashes = '#'.repeat(level);
  const lines = text.split('\n');
  const start = lines.indexOf(`${hashes} ${title}`);
  if (start < 0) throw new Error(`no section "${hashes} ${title}"`);
  let fenced = false;
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    if (lines[i]!.trimStart().startsWith('```')) fenced = !fenced;
    else if (!fenced && new RegExp(`^#{1,${level}} `).test(lines[i]!)) {
      end = i;
      break;
    }
  }
  return lines.slice(start, end).join('\n');
}

/** The text of the README section with this `## ` title, up to the next one. */
export const readmeSection = (title: string): string => section(README, title);

/** The ```sh blocks of a section. */
export const shBlocks = (section: string): string[] => [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);

/** The bodies the README's "One callback of each kind" sends with curl -d (login, bet, bet_result, R4), $NOW given. */
export function readmeCallbacks(now: number): string[] {
  return [...readmeSection('One callback of each kind').matchAll(/-d '((?:[^']|'\$NOW')*)'/g)].map((m) =>
    m[1]!.replaceAll("'$NOW'", String(now)),
  );
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
export const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');

/** The anchors of a Markdown page's headings (outside code blocks). */
export function anchors(text: string): Set<string> {
  const prose = text.replace(/```[\s\S]*?```/g, '');
  return new Set([...prose.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!)));
}

/** The relative links of a Markdown page (outside code blocks): [text](target), target split at `#`. */
export function relativeLinks(text: string): { file: string; anchor?: string }[] {
  const prose = text.replace(/```[\s\S]*?```/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z+.-]*:/i.test(target))
    .map((target) => {
      const [file, anchor] = target.split('#');
      return { file: file!, anchor };
    });
}
