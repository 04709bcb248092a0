// No import cycles among src/ files. A cycle makes load order decide whether a module sees its
// neighbour's exports or `undefined`, and it hides which of two files depends on the other.
// The compiled dist/src is read, not the sources: tsc erases `import type`, which costs nothing at run time.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { ROOT } from '../src/kernel/paths.js';

const DIST_SRC = fileURLToPath(new URL('../src/', import.meta.url));

/**
 * A static `import … from './x.js'`, `export … from './x.js'` or `import './x.js'` at the top level of a compiled
 * file. A dynamic `import('./x.js')` runs after loading, so it cannot see a half-loaded module: not counted.
 */
const RELATIVE_IMPORT = /^(?:import|export)\s+(?:[^'";]*?\sfrom\s*)?['"](\.{1,2}\/[^'"]+)['"]/gm;

/** Each compiled src/ file (that still has a source: dist may hold stale output) and the src/ files it imports. */
function importGraph(distSrc: string, root: string): Map<string, string[]> {
  const files = readdirSync(distSrc, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.js'))
    .map((f) => f.split('\\').join('/'))
    .filter((f) => existsSync(join(root, 'src', f.replace(/\.js$/, '.ts'))));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(distSrc, file), 'utf8');
    const targets = [...text.matchAll(RELATIVE_IMPORT)]
      .map((m) =>
        relative(distSrc, resolve(distSrc, dirname(file), m[1]!))
          .split('\\')
          .join('/'),
      )
      .filter((target) => known.has(target));
    graph.set(file, [...new Set(targets)].sort());
  }
  return graph;
}

/** One cycle per strongly connected component of more than one file (or a file importing itself), as a path a → … → a. */
function findCycles(graph: Map<string, string[]>): string[][] {
  // Tarjan's algorithm, iterative so a deep import chain cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  for (const start of [...graph.keys()].sort()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      if (component.length > 1 || (graph.get(frame.node) ?? []).includes(frame.node)) components.push(component.sort());
    }
  }
  return components.map((component) => cycleThrough(graph, component)).sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The shortest path from the component's first file back to itself, staying inside the component. */
function cycleThrough(graph: Map<string, string[]>, component: string[]): string[] {
  const inside = new Set(component);
  const start = component[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const to of graph.get(node) ?? []) {
      if (!inside.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = cameFrom.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

t.test('finding cycles', async (t) => {
  const cases: { name: string; graph: Record<string, string[]>; cycles: string[][] }[] = [
    { name: 'a chain has none', graph: { 'a.js': ['b.js'], 'b.js': ['c.js'], 'c.js': [] }, cycles: [] },
    { name: 'two files importing each other', graph: { 'a.js': ['b.js'], 'b.js': ['a.js'] }, cycles: [['a.js', 'b.js', 'a.js']] },
    {
      name: 'a longer loop, reported once, beside an unrelated file',
      graph: { 'x.js': ['a.js'], 'a.js': ['b.js'], 'b.js': ['c.js'], 'c.js': ['a.js'] },
      cycles: [['a.js', 'b.js', 'c.js', 'a.js']],
    },
    { name: 'a file importing itself', graph: { 'a.js': ['a.js'] }, cycles: [['a.js', 'a.js']] },
    {
      name: 'two separate cycles',
      graph: { 'a.js': ['b.js'], 'b.js': ['a.js'], 'c.js': ['d.js'], 'd.js': ['c.js'] },
      cycles: [
        ['a.js', 'b.js', 'a.js'],
        ['c.js', 'd.js', 'c.js'],
      ],
    },
  ];
  for (const c of cases) t.same(findCycles(new Map(Object.entries(c.graph))), c.cycles, c.name);
});

t.test('src/ has no import cycles (type-only imports excluded)', async (t) => {
  const graph = importGraph(DIST_SRC, ROOT);
  // The reader sees the imports it should: a regression in the pattern would otherwise pass vacuously.
  t.ok(graph.size > 50, `${graph.size} compiled src/ files`);
  t.same(
    graph.get('backends/file/snapshot-file.js')?.includes('backends/file/snapshot-format.js'),
    true,
    'snapshot-file.js imports snapshot-format.js',
  );
  const cycles = findCycles(graph);
  t.same(
    cycles.map((c) => c.join(' → ')),
    [],
    'import cycles among src/ files (each: one file of the cycle, back to itself)',
  );
});
