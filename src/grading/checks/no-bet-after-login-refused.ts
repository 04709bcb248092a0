import { marked, mark } from '../model.js';
import { describe } from '../attempt.js';
import type { Reducer } from '../grader.js';
import { INVALID, SUCCESS, UNAUTHORIZED } from '../../protocol/seed/codes.js';

const ID = 'NO_BET_AFTER_LOGIN_REFUSED';
const FAILED = `${ID}:failed`;

/**
 * After a login read as R2 or R3, no new bet for that player until a later login is read as R0
 * ("the last login" is the one sent last whose answer was read: two sent at once, the newer one's R0
 * stands against the older one's refusal read after it).
 */
export const noBetAfterLoginRefused: Reducer = {
  known(g, a) {
    if (!a.session || (a.outcome !== UNAUTHORIZED && a.outcome !== INVALID)) return;
    const p = g.player(a.user);
    if (marked(p, ID)) return;
    mark(p, ID);
    g.tally(ID).exercise(a.user);
  },
  arrive(g, a) {
    if (a.effect !== 'opens' || a.nth !== 0) return;
    const p = g.player(a.user);
    const login = p.lastLogin;
    if (!login || login.outcome === SUCCESS || marked(p, FAILED)) return;
    mark(p, FAILED);
    g.tally(ID).violate(
      `${describe(a)} came after ${describe(login)} was refused with ${login.outcome} and before any successful login`,
      [login, a],
      a.tx,
    );
  },
};
