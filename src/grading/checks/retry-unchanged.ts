import { marked, mark } from '../model.js';
import { describe } from '../attempt.js';
import type { Reducer } from '../grader.js';
import { asGraded, differingFields } from '../graded-body.js';

const ID = 'RETRY_UNCHANGED';

/** Every resend of a transaction has the body of its first attempt, timestamp aside. */
export const retryUnchanged: Reducer = {
  arrive(g, a, tx) {
    if (a.nth === 0 || tx.first === a) return;
    const tally = g.tally(ID);
    if (a.nth === 1) tally.exercise(a.user);
    if (marked(tx, ID)) return;
    // Digests of the bodies without their timestamp, keys in a stable order (src/grading/graded-body.ts).
    const [first, again] = [asGraded(tx.first.body), asGraded(a.body)];
    if (first.sha256 === again.sha256) return;
    mark(tx, ID);
    const fields = differingFields(first, again) ?? [];
    tally.violate(
      `${describe(a)} resends ${a.tx} with a different body than #${tx.first.id}${fields.length ? `: ${fields.join(', ')} changed` : ''}`,
      [tx.first, a],
    );
  },
};
