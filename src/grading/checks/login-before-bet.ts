import { marked, mark } from '../model.js';
import { describe } from '../attempt.js';
import { LOGGED_IN, type Reducer } from '../grader.js';

const ID = 'LOGIN_BEFORE_BET';

/** A player's first bet comes after a login of theirs that the wallet accepted (R0). */
export const loginBeforeBet: Reducer = {
  arrive(g, a) {
    if (a.effect !== 'opens') return;
    const p = g.player(a.user);
    if (marked(p, ID)) return;
    mark(p, ID);
    g.tally(ID).exercise(a.user);
    if (!marked(p, LOGGED_IN))
      g.tally(ID).violate(`${describe(a)} is the first bet of ${a.user}, and no login of theirs succeeded before it`, [a]);
  },
};
