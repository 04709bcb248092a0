import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { parse } from 'yaml';
import { DEFAULT_SERVER, openapiText } from '../src/app/openapi-command.js';
import { ROOT } from '../src/kernel/paths.js';
import { buildTestApp } from './helpers/app.js';

// The built CLI, as a user runs it (`npm test` builds first).
const CLI = join(ROOT, 'dist/src/cli.js');
const run = promisify(execFile);
t.setTimeout(120_000); // each run starts node and builds the app: a few seconds on a busy machine

const cli = (...args: string[]) => run(process.execPath, [CLI, 'openapi', ...args], { cwd: ROOT, timeout: 30_000 });

/** The callback examples' timestamps are the time the document is written out: compared as 0. */
const timeless = <T>(doc: T): T => JSON.parse(JSON.stringify(doc), (k, v: unknown) => (k === 'timestamp' && typeof v === 'number' ? 0 : v));

async function served(): Promise<Record<string, unknown>> {
  const { app } = await buildTestApp();
  // asked as a simulator at the default address is (its server and Callback-URL example name the Host asked)
  const res = await app.inject({ method: 'GET', url: '/openapi.json', headers: { host: new URL(DEFAULT_SERVER).host } });
  await app.close();
  return timeless(JSON.parse(res.body));
}

t.test('wallet-sim openapi', { skip: existsSync(CLI) ? false : `${CLI} missing: run npm run build` }, async (t) => {
  const expected = await served();

  t.test('prints the document as JSON, with an absolute server, without listening', async (t) => {
    const { stdout } = await cli();
    const doc = timeless(JSON.parse(stdout));
    t.same(doc.servers, [{ url: DEFAULT_SERVER, description: 'wallet-sim start (change to where yours listens)' }]);
    t.same({ ...doc, servers: expected.servers }, expected, 'otherwise the document served at /openapi.json');
  });

  t.test('--server / writes a relative server, and otherwise what /openapi.json serves', async (t) => {
    // The text the command prints, made in this process (a spawn builds the app: a second of CPU);
    // the command itself prints it: the cases around this one.
    const doc = timeless(JSON.parse(await openapiText({ server: '/' })));
    t.same(doc.servers, [{ url: '/', description: 'This simulator' }]);
    t.same({ ...doc, servers: expected.servers }, expected);
  });

  t.test('--out --yaml --server --path write a YAML file', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-openapi-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'wallet-sim.openapi.yaml');
    const { stdout } = await cli('--out', file, '--yaml', '--server', 'http://127.0.0.1:9999', '--path', '/cb');
    t.equal(stdout, '', 'nothing on stdout');
    const doc = timeless(parse(readFileSync(file, 'utf8')));
    t.equal(doc.servers[0].url, 'http://127.0.0.1:9999');
    const paths = expected.paths as Record<string, unknown>;
    const { '/callback': callback, ...rest } = paths;
    // Its Callback-URL example names the callback at --server and --path (issue 9 item 5).
    const moved = structuredClone(callback) as { post: { parameters: { name: string; example?: string }[] } };
    moved.post.parameters.find((p) => p.name === 'Callback-URL')!.example = 'http://127.0.0.1:9999/cb';
    t.same({ ...doc, servers: expected.servers }, { ...expected, paths: { '/cb': moved, ...rest } }, 'the same document, callback at /cb');
  });
});
