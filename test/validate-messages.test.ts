// How scenario problems are worded: a misspelled key (the allowed ones, "did you mean …?"), an empty
// `then` (what a rule can do, from the schema), a missing file (as start --scenario names it). Through
// the validate command in this process, and once through PUT /admin/scenario: one formatter for both.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { validateCommand } from '../src/commands/validate.js';
import { buildTestApp, TEST_SCENARIO } from './helpers/app.js';
import { runHere } from './helpers/run-here.js';

const WHEN_KEYS = 'event_type, user_id, game_no, table_no, game_type, currency, min_amount, max_amount, nth, every';
const THEN_KEYS = 'code, delay_ms, drop_connection, http_status, body, latest_balance, set_balance';
const typo = { ...TEST_SCENARIO, rules: [{ when: { evnt_type: 'bet' }, then: { code: 'R4' } }] };
const empty = { ...TEST_SCENARIO, rules: [{ when: {}, then: {} }] };

t.test('wallet-sim validate words each problem with what to do', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-validate-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const [typoFile, emptyFile] = [join(dir, 'typo.json'), join(dir, 'empty.json')];
  writeFileSync(typoFile, JSON.stringify(typo));
  writeFileSync(emptyFile, JSON.stringify(empty));
  const r = await runHere(validateCommand(), [typoFile, emptyFile, join(dir, 'nosuch.json'), 'certifcation.json']);
  t.equal(r.code, 1);
  t.equal(r.stdout, '');
  t.match(
    r.stderr,
    `${typoFile}: /rules/0/when/evnt_type is not an allowed property (did you mean event_type?); allowed here: ${WHEN_KEYS}\n`,
  );
  t.match(r.stderr, `${emptyFile}: /rules/0/then is empty: give it what the rule does (one of ${THEN_KEYS})\n`);
  t.match(r.stderr, `no scenario file ${join(dir, 'nosuch.json')}, and no bundled scenario of that name.\nGive a path to a scenario file`);
  t.match(r.stderr, /no scenario file certifcation\.json, .*\nDid you mean certification\?\n/);
  t.notMatch(r.stderr, /ENOENT|fewer than/);
});

t.test('a scenario file saved with a byte-order mark (Windows editors) is read as any other', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-validate-bom-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const [good, bad] = [join(dir, 'bom.json'), join(dir, 'bom-typo.json')];
  writeFileSync(good, `\uFEFF${JSON.stringify(TEST_SCENARIO, null, 2)}`);
  writeFileSync(bad, `\uFEFF${JSON.stringify(typo)}`);
  const r = await runHere(validateCommand(), [good, bad]);
  t.match(r.stdout, `${good}: ok`);
  t.notMatch(r.stderr, /not valid JSON|\uFEFF/, 'the mark is no token of the JSON');
  t.match(r.stderr, `${bad}: /rules/0/when/evnt_type is not an allowed property`, 'its real problems are still named');
});

t.test('PUT /admin/scenario answers the same words in its 400', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'PUT', url: '/admin/scenario', payload: { ...typo, rules: [...typo.rules, ...empty.rules] } });
  t.equal(res.statusCode, 400);
  t.same(res.json().details, [
    { pointer: '/rules/0/when/evnt_type', message: `is not an allowed property (did you mean event_type?); allowed here: ${WHEN_KEYS}` },
    { pointer: '/rules/1/then', message: `is empty: give it what the rule does (one of ${THEN_KEYS})` },
  ]);
});
