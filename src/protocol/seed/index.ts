import type { CallbackRequest } from '../types.generated.js';
import { bet } from './bet.js';
import { betResult } from './bet-result.js';
import type { EventHandler } from '../event.js';
import { login } from './login.js';
import { eventNamed, registerEvent } from '../registry.js';

/** The built-in events, in the order the schemas list them: the one list a new event is added to. */
export const BUILT_IN_EVENTS = [login, bet, betResult] as const;
for (const e of BUILT_IN_EVENTS) registerEvent(e);

export { eventNamed, registeredEvents, registerEvent, roundEffectOf } from '../registry.js';

/** The handler of a (schema-valid) request's event. */
export const eventOf = <R extends CallbackRequest>(req: R): EventHandler<R> => eventNamed(req.event_type) as EventHandler<R>;
