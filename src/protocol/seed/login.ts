import type { LoginRequest } from '../types.generated.js';
import { playerChange } from '../../ledger/state.js';
import type { EventHandler } from '../event.js';
import { finding } from '../findings.js';

/** login: R0 with the balance; only a new player is a change. */
export const login: EventHandler<LoginRequest> = {
  type: 'login',
  schema: 'LoginRequest',
  gameNo: () => undefined,
  matchFields: () => ({}),
  decide: (req, { player, isNew, findings }) => {
    // The spec's envelope has data only for bet and bet_result: a client that sends one on a login
    // builds its bodies from the wrong template (answered R0 all the same: nothing in it is read).
    if (Object.hasOwn(req, 'data'))
      findings.push(
        finding('DATA_ON_LOGIN', 'a login carries no data (only bet and bet_result do): leave it out of login bodies', '/data'),
      );
    return isNew ? [playerChange(player)] : [];
  },
  findings: ['DATA_ON_LOGIN'],
  echoesCallbackUrl: true,
  grading: { startsSession: true },
};
