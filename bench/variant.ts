import { cpSync, existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../src/kernel/paths.js';

/**
 * node dist/bench/variant.js <variant> [<variant>…]
 *
 * A copy of this build (dist/) with a part of grading switched off or shrunk, for an A/B over HTTP
 * in the same rounds: `npm run bench -- --quick --compare $(node dist/bench/variant.js ungraded)`.
 * Prints the copy's dist/ directory (in a temporary directory, with links to this project's
 * node_modules, schemas and scenarios). Each variant edits the compiled JavaScript at one anchor,
 * and fails if the anchor is gone: the copy measures exactly what its name says, or nothing.
 * No variant is a product option: they answer "what does this part of a callback cost?". The copy
 * stays where it is printed (about 8 MB): remove it when done.
 *
 *   ungraded       grading's feed keeps nothing (bench/pipeline.ts --ungraded, over HTTP)
 *   no-fold        the pipeline hands every callback over, grading folds none (arrive returns at once)
 *   no-checks      grading keeps its state (attempts, transactions, rounds) but runs none of the 14 checks
 *   no-rounds      no round is booked (the checks that read rounds see none)
 *   no-evidence    grading keeps neither the body nor the request and reply it would cite
 *   limits=<n>     grading holds <n> transactions and <n> rounds instead of 50,000
 */

/** One edit of the compiled build: `anchor` (found exactly once in `file`) becomes `by`. */
type Edit = [file: string, anchor: string, by: string];

const UNGRADED = `{ expect: () => 0, settle: () => undefined, arrived: () => undefined, arrive: () => undefined, closed() {}, complete() {}, count() {} }`;
const ARRIVE = 'this.advance(arrival.at);\n        let tx = this.txs.get(arrival.tx);';
const BOOK = '            fn(this, a, tx);\n        this.book(a, tx);\n        return a;';
const ARRIVAL =
  '        body: keptBody(x.requestBody, x.chars, x.text),\n        applied: code === SUCCESS && !excused,\n        excused,\n        imposed: x.out.forced !== undefined || relayed(x),\n        headers: request.headers,\n        reply,';

const VARIANTS: Record<string, Edit[]> = {
  ungraded: [['src/core/simulator.js', 'get gradingFeed() {', `get gradingFeed() {\n        return ${UNGRADED};`]],
  'no-fold': [['src/grading/grader.js', ARRIVE, ARRIVE.replace('at);', 'at);\n        return undefined;')]],
  'no-checks': [['src/grading/grader.js', 'this.hooks = hooked([...reducers.values()]);', 'this.hooks = hooked([]);']],
  'no-rounds': [['src/grading/grader.js', BOOK, BOOK.replace('        this.book(a, tx);\n', '')]],
  'no-evidence': [
    [
      'src/grading/feed.js',
      ARRIVAL,
      ARRIVAL.replace('keptBody(x.requestBody, x.chars, x.text)', 'undefined')
        .replace('request.headers', 'undefined')
        .replace('reply,', 'reply: undefined,'),
    ],
  ],
};
const NAMES = `${Object.keys(VARIANTS).join(', ')} or limits=<n>`;

function editsOf(variant: string): Edit[] {
  const limits = /^limits=(\d+)$/.exec(variant);
  if (limits) {
    const n = Number(limits[1]).toLocaleString('en').replaceAll(',', '_');
    return ['MAX_TRANSACTIONS', 'MAX_ROUNDS'].map((name) => [
      'src/grading/model.js',
      `export const ${name} = 50_000;`,
      `export const ${name} = ${n};`,
    ]);
  }
  if (!Object.hasOwn(VARIANTS, variant)) throw new Error(`no variant "${variant}": ${NAMES}`);
  return VARIANTS[variant]!;
}

const variants = process.argv.slice(2);
if (variants.length === 0) throw new Error(`name a variant: ${NAMES}`);
const edits = variants.flatMap(editsOf);
const dir = mkdtempSync(join(tmpdir(), `wallet-sim-${variants.join('+').replace(/[^a-z0-9+=-]/g, '')}-`));
cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
for (const link of ['node_modules', 'schemas', 'scenarios', 'package.json', 'ui'])
  if (existsSync(join(ROOT, link))) symlinkSync(join(ROOT, link), join(dir, link));
for (const [file, anchor, by] of edits) {
  const path = join(dir, 'dist', file);
  const text = readFileSync(path, 'utf8');
  const at = text.indexOf(anchor);
  if (at < 0 || text.indexOf(anchor, at + 1) >= 0)
    throw new Error(`${file}: the anchor of this variant is not there once (the code moved: update bench/variant.ts)`);
  writeFileSync(path, text.slice(0, at) + by + text.slice(at + anchor.length));
}
console.log(join(dir, 'dist'));
