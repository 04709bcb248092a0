import { marked, mark } from '../model.js';
import { describe } from '../attempt.js';
import { LOGGED_IN, type Reducer } from '../grader.js';

const ID = 'LOGIN_BEFORE_BET';

/**
 * A player's first bet comes after a login of theirs that the wallet accepted (R0). A player a
 * restarted wallet already held is not judged: its login may have come before the restart.
 */
export const loginBeforeBet: Reducer = {
  arrive(g, a) {
    if (a.effect !== 'opens') return;
    const p = g.player(a.user);
    if (marked(p, ID)) return;
    mark(p, ID);
    if (g.resumed.has(a.user)) return;
    g.tally(ID).exercise(a.user);
    if (!marked(p, LOGGED_IN))
      g.tally(ID).violate(`${describe(a)} is the first bet of ${a.user}, and no login of theirs succeeded before it`, [a]);
  },
};
