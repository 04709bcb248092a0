// Nesting depth of scenario and admin bodies (issue 21, item 5): a rule whose then.body nests
// 20,000 deep was accepted and GET /admin/scenario then answered 500. Refused now, with the pointer.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { MAX_DOCUMENT_DEPTH } from '../src/text/json-depth.js';
import { loadScenarioFile, ScenarioError } from '../src/core/scenario/scenario.js';
import { buildTestApp, TEST_SCENARIO } from './helpers/app.js';
import { run } from './helpers/spawn-cli.js';
import { tempDir } from './helpers/temp.js';

t.setTimeout(60_000);

/** `{"a":{"a":…}}` nested `levels` deep, built as text (JSON.stringify would recurse). */
const nestedText = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
/** A scenario whose one rule answers with a body of that nesting (the document nests 4 levels more). */
const scenarioText = (bodyLevels: number) => {
  const { rules: _, ...rest } = TEST_SCENARIO;
  return `${JSON.stringify(rest).slice(0, -1)},"rules":[{"name":"deep","when":{},"then":{"body":${nestedText(bodyLevels)}}}]}`;
};
/** Where a body of too many levels is refused: the first level past the bound. */
const POINTER = `/rules/0/then/body${'/a'.repeat(MAX_DOCUMENT_DEPTH - 4)}`;
const json = { 'content-type': 'application/json' };

t.test('PUT /admin/scenario refuses a then.body nested 20,000 deep with 400 naming the pointer; nothing changes', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  const put = await app.inject({ method: 'PUT', url: '/admin/scenario', headers: json, payload: scenarioText(20_000) });
  t.equal(put.statusCode, 400);
  const body = put.json();
  t.equal(body.error, 'BAD_REQUEST');
  t.same(body.details, [
    { pointer: POINTER, message: `nests deeper than ${MAX_DOCUMENT_DEPTH} levels; no wallet-sim document needs that many: flatten it` },
  ]);
  t.match(body.message, `${POINTER} nests deeper than ${MAX_DOCUMENT_DEPTH} levels`);
  t.equal(sim.scenario.source.name, 'test', 'the old scenario stays');
  const get = await app.inject({ url: '/admin/scenario' });
  t.equal(get.statusCode, 200, 'GET /admin/scenario answers');
  t.same(get.json().rules, [], 'the old rules');
});

t.test('a then.body at the bound is accepted and GET /admin/scenario serialises it', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const put = await app.inject({ method: 'PUT', url: '/admin/scenario', headers: json, payload: scenarioText(MAX_DOCUMENT_DEPTH - 4) });
  t.equal(put.statusCode, 200, put.body);
  const get = await app.inject({ url: '/admin/scenario' });
  t.equal(get.statusCode, 200);
  t.equal(JSON.stringify(get.json().rules[0].then.body), nestedText(MAX_DOCUMENT_DEPTH - 4));
  const over = await app.inject({ method: 'PUT', url: '/admin/scenario', headers: json, payload: scenarioText(MAX_DOCUMENT_DEPTH - 3) });
  t.equal(over.statusCode, 400, 'one level more is refused');
  t.equal(over.json().details[0].pointer, POINTER);
});

t.test('every admin body is bounded: players, reset, scenario', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  const deep = `{"balance":5,"extra":${nestedText(20_000)}}`;
  for (const [method, url] of [
    ['PUT', '/admin/players/player-1'],
    ['POST', '/admin/reset'],
    ['PUT', '/admin/scenario?reset=true'],
  ] as const) {
    const res = await app.inject({ method, url, headers: json, payload: deep });
    t.equal(res.statusCode, 400, `${method} ${url}`);
    t.equal(res.json().details[0].pointer, `/extra${'/a'.repeat(MAX_DOCUMENT_DEPTH - 1)}`);
  }
  t.equal(sim.player('player-1')?.balance.toFixed(), '1000000', 'nothing changed');
});

t.test('scenario files: validate and start refuse a deep one naming the file and the pointer', async (t) => {
  const dir = tempDir('wallet-sim-nesting-');
  const file = join(dir, 'deep.json');
  writeFileSync(file, scenarioText(20_000));
  t.throws(() => loadScenarioFile(file), ScenarioError);
  t.throws(() => loadScenarioFile(file), { message: `${file}: ${POINTER} nests deeper than ${MAX_DOCUMENT_DEPTH} levels` });
  const validate = await run(['validate', file]);
  t.equal(validate.code, 1);
  t.match(validate.stdout + validate.stderr, `${POINTER} nests deeper than ${MAX_DOCUMENT_DEPTH} levels`);
  const start = await run(['start', '--port', '0', '--scenario', file]);
  t.equal(start.code, 1);
  t.match(start.stderr, `${POINTER} nests deeper`);
});
