/**
 * The house's layers (CONTRIBUTING.md, "The layers"): each imports only those below it, `import type`
 * included. `npm run lint` runs this; `npm run graph` draws the same graph.
 */
const LAYERS = [
  ['leaves', ['src/text/', 'src/report/', 'src/http/', 'src/protocol/[^/]+\\.generated\\.ts$']],
  ['kernel', ['src/kernel/', 'src/evidence/']],
  ['ledger', ['src/ledger/']],
  ['protocol', ['src/protocol/']],
  ['core', ['src/core/']],
  ['backends', ['src/backends/']],
  ['consumers', ['src/wallet/', 'src/journal/', 'src/grading/', 'src/reconcile/', 'src/client/']],
  ['faces', ['src/routes/', 'src/commands/', 'src/probe/', 'src/verify/', 'src/openapi/']],
  ['app', ['src/app/']],
  ['entry', ['src/cli\\.ts$', 'src/index\\.ts$']],
];

const pattern = (paths) => `^(${paths.map((p) => p.replace(/\/$/, '/')).join('|')})`;
const generated = 'src/protocol/[^/]+\\.generated\\.ts$';

const layerRules = LAYERS.slice(0, -1).map(([name, paths], i) => ({
  name: `layer-${name}`,
  comment: `${name} imports only the layers below it: ${LAYERS.slice(0, i).map(([n]) => n).join(', ') || 'none'}`,
  severity: 'error',
  from: { path: pattern(paths), pathNot: i === 0 ? undefined : generated },
  to: { path: pattern(LAYERS.slice(i + 1).flatMap(([, p]) => p)), pathNot: generated },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no circle of imports, type-only imports counted',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-orphans',
      comment: 'a module nothing imports is dead code (or an entry point listed here)',
      severity: 'error',
      // src/text/form-terms.ts: the probe page's words (ui/ imports it; src/ has no page to say them on).
      from: { orphan: true, path: '^src/', pathNot: ['\\.d\\.ts$', '^src/(cli|index)\\.ts$', '^src/text/form-terms\\.ts$', generated] },
      to: {},
    },
    ...layerRules,
    {
      name: 'protocol-seam',
      comment:
        'what is specific to this spec (src/protocol/seed/) is reached through the protocol port below the consumers: ' +
        'the core, the backends, the ledger and the port itself never name it (src/app/compose.ts picks it)',
      severity: 'error',
      from: { path: '^src/(kernel|evidence|ledger|core|backends)/|^src/protocol/[^/]+$' },
      to: { path: '^src/protocol/seed/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
    reporterOptions: {
      // npm run graph: one box a folder (protocol/seed apart), top to bottom.
      dot: { collapsePattern: '^src/(protocol/seed|[^/]+)', theme: { graph: { rankdir: 'TB' } } },
    },
  },
};
