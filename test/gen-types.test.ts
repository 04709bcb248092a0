// The TypeScript types come from schemas/*.schema.json; the checked-in file must be what they generate.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { generateTypes, TYPES_FILE } from '../scripts/gen-types.js';

t.test('src/protocol/types.generated.ts is current with schemas/', async (t) => {
  const generated = await generateTypes();
  const onDisk = readFileSync(TYPES_FILE, 'utf8');
  t.ok(
    generated.length > 0 && /export interface CallbackReply\b|export type CallbackReply\b/.test(generated),
    'the generator produces the reply type',
  );
  t.ok(
    onDisk === generated,
    `${TYPES_FILE} is stale: the schemas changed since it was generated. Run \`npm run gen:types\` and commit the result.`,
  );
});
