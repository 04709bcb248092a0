// TransactionIndex keeps the newest `retain` transactions, oldest forgotten first, also after a
// clear and when the bound is lowered (it walks its Map with one live iterator).
import t from 'tap';
import { forgottenTxn } from '../../src/ledger/change.js';
import { TransactionIndex } from '../../src/ledger/retention.js';

const txn = (n: number) => ({ transaction_id: `t${n}`, user_id: 'p1', event_type: 'bet', fingerprint: 'f' });
const ids = (index: TransactionIndex) => [...index.records.keys()];
const never = () => false;

t.test('the newest n stay, the older are forgotten, in order', async (t) => {
  const index = new TransactionIndex(3);
  for (let n = 1; n <= 10; n++) index.add(txn(n), never);
  t.same(ids(index), ['t8', 't9', 't10']);
  for (let n = 1; n <= 7; n++) t.ok(index.forgotten.has(forgottenTxn(`t${n}`)), `t${n} forgotten`);
  t.notOk(index.forgotten.has(forgottenTxn('t8')));
  index.add(txn(9), never); // a retained one again: nothing moves
  t.same(ids(index), ['t8', 't9', 't10']);
  index.add(txn(11), never);
  t.same(ids(index), ['t9', 't10', 't11'], 't8 went, not t9');
});

t.test('after a clear, and with the bound lowered', async (t) => {
  const index = new TransactionIndex(3);
  for (let n = 1; n <= 5; n++) index.add(txn(n), never);
  index.clear();
  t.same(ids(index), []);
  for (let n = 6; n <= 10; n++) index.add(txn(n), never);
  t.same(ids(index), ['t8', 't9', 't10'], 'the new history only');
  index.retain = 1;
  index.add(txn(11), never);
  t.same(ids(index), ['t11']);
  index.retain = 0;
  index.add(txn(12), never);
  index.add(txn(13), never);
  t.same(ids(index), [], 'retain 0 keeps nothing');
  t.ok(index.forgotten.has(forgottenTxn('t13')));
});
