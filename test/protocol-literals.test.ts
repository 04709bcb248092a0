// The protocol's literals (its codes, header names, `bet_result`, the totals' and latest_balance's
// names) stand in src/protocol/ only: the layers above name them through src/protocol/seed/
// (codes.ts, wire.ts) or the core's Protocol port. One file is allowed, and why is said here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../src/kernel/paths.js';

const LITERAL =
  /['"`](R[0-4]|api-id|api-key|callback-url|Api-Id|Api-Key|Callback-URL|bet_result|total_bet_amount|total_winloss|latest_balance)['"`]/;

const ALLOWED: Record<string, string> = {
  // The kernel masks secret headers (Api-Key among Authorization and cookies) and may not import the protocol.
  'src/kernel/secrets.ts': 'api-key',
};

t.test('protocol literals stand only in src/protocol/ (and the files allowed above)', async (t) => {
  const files = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .map((f) => `src/${f.split('\\').join('/')}`)
    .filter((f) => f.endsWith('.ts') && !f.startsWith('src/protocol/'));
  t.ok(files.length > 100, `${files.length} files read`);
  const found = files.filter((f) => LITERAL.test(readFileSync(join(ROOT, f), 'utf8')));
  t.same(found.sort(), Object.keys(ALLOWED).sort(), 'the files outside src/protocol/ that name a protocol literal');
});
