import { cpSync, existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../src/paths.js';

/**
 * node dist/bench/variant.js <variant> [<variant>…]
 *
 * A copy of this build (dist/) with a part of grading switched off or shrunk, for an A/B over HTTP
 * in the same rounds: `npm run bench -- --quick --compare $(node dist/bench/variant.js ungraded)`.
 * Prints the copy's dist/ directory (in a temporary directory, with links to this project's
 * node_modules, schemas and scenarios). Each variant edits the compiled JavaScript at one anchor,
 * and fails if the anchor is gone: the copy measures exactly what its name says, or nothing.
 * No variant is a product option: they answer "what does this part of a callback cost?".
 *
 *   ungraded       grading's feed keeps nothing (bench/pipeline.ts --ungraded, over HTTP)
 *   no-fold        the pipeline hands every callback over, grading folds none (arrive returns at once)
 *   no-checks      grading keeps its state (attempts, transactions, rounds) but runs none of the 14 checks
 *   no-rounds      no round is booked (the checks that read rounds see none)
 *   no-evidence    grading keeps neither the body nor the request and reply it would cite
 *   limits=<n>     grading holds <n> transactions and <n> rounds instead of 50,000
 */
interface Edit {
  file: string;
  anchor: string;
  replace: (anchor: string) => string;
}

const UNGRADED = `{ expect: () => 0, settle: () => undefined, arrive: () => undefined, closed() {}, complete() {}, count() {} }`;

function editsOf(variant: string): Edit[] {
  const limits = /^limits=(\d+)$/.exec(variant);
  if (limits) {
    const n = Number(limits[1]).toLocaleString('en').replaceAll(',', '_');
    return ['MAX_TRANSACTIONS', 'MAX_ROUNDS'].map((name) => ({
      file: 'src/grading/model.js',
      anchor: `export const ${name} = 50_000;`,
      replace: () => `export const ${name} = ${n};`,
    }));
  }
  switch (variant) {
    case 'ungraded':
      return [{ file: 'src/simulator.js', anchor: 'get gradingFeed() {', replace: (a) => `${a}\n        return ${UNGRADED};` }];
    case 'no-fold':
      return [
        {
          file: 'src/grading/grader.js',
          anchor: 'this.advance(arrival.at);\n        let tx = this.txs.get(arrival.tx);',
          replace: (a) => a.replace('this.advance(arrival.at);', 'this.advance(arrival.at);\n        return undefined;'),
        },
      ];
    case 'no-checks':
      return [
        {
          file: 'src/grading/grader.js',
          anchor: 'this.hooks = hooked([...reducers.values()]);',
          replace: () => 'this.hooks = hooked([]);',
        },
      ];
    case 'no-rounds':
      return [
        {
          file: 'src/grading/grader.js',
          anchor: '            fn(this, a, tx);\n        this.book(a, tx);\n        return a;',
          replace: (a) => a.replace('        this.book(a, tx);\n', ''),
        },
      ];
    case 'no-evidence':
      return [
        {
          file: 'src/callback/pipeline.js',
          anchor: "        body,\n        applied: code === 'R0',\n        source: { request: { headers: request.headers, body }, reply },",
          replace: () => "        body: undefined,\n        applied: code === 'R0',\n        source: undefined,",
        },
      ];
    default:
      throw new Error(`no variant "${variant}": ungraded, no-fold, no-checks, no-rounds, no-evidence or limits=<n>`);
  }
}

const variants = process.argv.slice(2);
if (variants.length === 0) throw new Error('name a variant: ungraded, no-fold, no-checks, no-rounds, no-evidence or limits=<n>');
const edits = variants.flatMap(editsOf);
const dir = mkdtempSync(join(tmpdir(), `wallet-sim-${variants.join('+').replace(/[^a-z0-9+=-]/g, '')}-`));
cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
for (const link of ['node_modules', 'schemas', 'scenarios', 'package.json', 'ui'])
  if (existsSync(join(ROOT, link))) symlinkSync(join(ROOT, link), join(dir, link));
for (const { file, anchor, replace } of edits) {
  const path = join(dir, 'dist', file);
  const text = readFileSync(path, 'utf8');
  const at = text.indexOf(anchor);
  if (at < 0 || text.indexOf(anchor, at + 1) >= 0)
    throw new Error(`${file}: the anchor of this variant is not there once (the code moved: update bench/variant.ts)`);
  writeFileSync(path, text.slice(0, at) + replace(anchor) + text.slice(at + anchor.length));
}
console.log(join(dir, 'dist'));
