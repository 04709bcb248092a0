// What is derived is checked in as it derives: the lists of events in schemas/ and the event names
// from the event registry (src/protocol/seed/), the TypeScript types from schemas/*.schema.json.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { EVENTS_FILE, generateTypes, generated, TYPES_FILE } from '../scripts/gen-types.js';
import type { JournalEntry as Journalled } from '../src/journal/journal.js';
import type { JournalEntry, RuleHits } from '../src/protocol/types.generated.js';
import type { RuleHits as Counted } from '../src/core/scenario/rules.js';

// The dashboard reads the generated types: what the server sends must be one of them. A type-level
// check, so it is checked when compiled: \`npm run build\` (tsc) fails when they part.
type Is<A, B extends A> = B;
export type JournalEntryIsGenerated = Is<JournalEntry, Journalled>;
export type RuleHitsAreGenerated = Is<RuleHits, Counted[]>;

t.test('src/protocol/types.generated.ts is what the generator makes of schemas/ now', async (t) => {
  const types = (await generated()).find((f) => f.file === TYPES_FILE);
  t.equal(types?.text, await generateTypes(), 'the file checked below is the generator output');
  t.equal(readFileSync(TYPES_FILE, 'utf8'), types?.text, `${TYPES_FILE} is stale: run \`npm run gen:types\` and commit the result`);
});

t.test('every generated file is current (schemas/ event lists, event names, types)', async (t) => {
  const files = await generated();
  t.ok(files.some((f) => f.file === EVENTS_FILE) && files.some((f) => f.file === TYPES_FILE));
  t.ok(
    files.filter((f) => f.file.endsWith('.schema.json')).length >= 5,
    'the envelope, the callback request, the scenario, the journal filter and the ledger row list the events',
  );
  for (const { file, text } of files)
    t.ok(
      readFileSync(file, 'utf8') === text,
      `${file} is stale: the events or the schemas changed since it was generated. Run \`npm run gen:types\` and commit the result.`,
    );
});
