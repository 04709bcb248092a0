import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/**
 * A callback's stages, and which code belongs to each: a sample of a CPU profile is charged to the
 * innermost frame on its stack that belongs to a stage, so decimal.js, JSON, crypto and Node's
 * internals count for the stage that called them (a Decimal made by the reply is the reply's).
 *
 * node dist/bench/stage-map.js <file.cpuprofile> [requests]   (a `--cpu-prof` file of the HTTP bench)
 */
export interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** By module of src/ (compiled path without .js), then by function where one module serves two stages. */
const BY_FUNCTION: Record<string, Record<string, string>> = {
  'callback/read': { parseBody: 'parse', authenticate: 'auth' },
  'callback/reply': { journalledBody: 'journal (entry, masking)' },
  // legacyFingerprintOf runs only for a record an older version wrote.
  'wallet/decide': { legacyFingerprintOf: 'idempotency fingerprint', sha256base64url: 'idempotency fingerprint' },
  secrets: { matches: 'auth' },
  simulator: { checkCredentials: 'auth', chooseRule: 'rules', countCall: 'rules' },
  callback: { decideWithRule: 'decide (wallet, events, money)' },
  'callback/handle': { decideWithRule: 'decide (wallet, events, money)' },
  'routes/callback': { gradedArrival: 'grading', gradedBody: 'grading', findingCodes: 'grading' },
  'routes/callback-answer': { gradedArrival: 'grading', gradedBody: 'grading', findingCodes: 'grading' },
};
const BY_MODULE: [RegExp, string][] = [
  [/^callback\/read$/, 'validate'],
  [/^secrets$/, 'journal (entry, masking)'],
  [/^scenario\//, 'rules'],
  [/^wallet\/fingerprint$/, 'idempotency fingerprint'],
  [/^(wallet|events)\//, 'decide (wallet, events, money)'],
  [/^backends\/redis\/journal$/, 'journal (entry, masking)'],
  [/^backends\/(local|redis)\/grading$/, 'grading'],
  [/^(store|backends)\//, 'store'],
  [/^journal\//, 'journal (entry, masking)'],
  [/^grading\//, 'grading'],
  [/^callback\/reply$/, 'reply'],
  [/^(callback(\/handle)?|awaitable)$/, 'pipeline glue (callback.ts)'],
  [/^routes\/callback(-answer)?$/, 'route (routes/callback.ts)'],
  [/^(shutdown|iso-time)$/, 'route (routes/callback.ts)'],
];
const BY_PACKAGE: [RegExp, string][] = [
  [/node_modules\/secure-json-parse\//, 'parse'],
  [/node_modules\/ajv\//, 'validate'],
  [/node_modules\/(pino|pino-std-serializers|sonic-boom)\//, 'logger'],
  [/node_modules\/light-my-request\//, 'inject (client and fake socket)'],
  [/node_modules\/(fastify|find-my-way|avvio|@fastify\/[^/]+|fast-json-stringify)\//, 'Fastify'],
  [/^file:.*\/bench\/[^/]+\.js$/, 'bench client (traffic)'],
  [/^node:(_http|net|stream|internal\/stream|internal\/net)/, 'HTTP and socket (node)'],
];

function stageOf(functionName: string, url: string): string | undefined {
  const own = url.includes('/node_modules/') ? undefined : /^file:.*?\/src\/(.+)\.js$/.exec(url)?.[1];
  // Helpers every stage calls (exact money, the finding table) count for their caller.
  if (own && /^(money|protocol\/.+)$/.test(own)) return undefined;
  if (own) return BY_FUNCTION[own]?.[functionName] ?? BY_MODULE.find(([re]) => re.test(own))?.[1] ?? `other src/${own}`;
  // ajv's compiled validators have no URL of their own.
  if (!url && /^validate\d+$/.test(functionName)) return 'validate';
  return BY_PACKAGE.find(([re]) => re.test(url))?.[1];
}

/** Microseconds of the profile's busy time (idle left out) by stage. */
export function stageTimes(profile: Profile): Map<string, number> {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
  const stageById = new Map<number, string>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const stageOfNode = (id: number): string => {
    const known = stageById.get(id);
    if (known) return known;
    const { functionName, url } = byId.get(id)!.callFrame;
    const special =
      functionName === '(garbage collector)' ? 'garbage collector' : functionName === '(idle)' ? '(idle)' : stageOf(functionName, url);
    const up = parent.get(id);
    const stage = special ?? (up === undefined ? 'runtime (microtasks, timers, program)' : stageOfNode(up));
    stageById.set(id, stage);
    return stage;
  };
  const out = new Map<string, number>();
  for (const [i, id] of profile.samples.entries()) {
    const stage = stageOfNode(id);
    if (stage !== '(idle)') out.set(stage, (out.get(stage) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [file, requests] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node dist/bench/stage-map.js <file.cpuprofile> [requests]');
    process.exit(1);
  }
  const times = stageTimes(JSON.parse(readFileSync(file, 'utf8')) as Profile);
  const busy = [...times.values()].reduce((a, b) => a + b, 0);
  for (const [stage, us] of [...times].sort((a, b) => b[1] - a[1]))
    console.log(
      `${((100 * us) / busy).toFixed(1).padStart(5)} %  ${requests ? `${(us / Number(requests)).toFixed(1).padStart(6)} µs  ` : ''}${stage}`,
    );
}
