import type { LoginRequest } from '../types.generated.js';
import { playerChange } from '../../ledger/state.js';
import type { EventHandler } from '../event.js';

/** login: R0 with the balance; only a new player is a change. */
export const login: EventHandler<LoginRequest> = {
  type: 'login',
  schema: 'LoginRequest',
  gameNo: () => undefined,
  matchFields: () => ({}),
  decide: (_req, { player, isNew }) => (isNew ? [playerChange(player)] : []),
  findings: [],
  echoesCallbackUrl: true,
  grading: { startsSession: true },
};
