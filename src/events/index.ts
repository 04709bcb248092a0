import type { CallbackRequest } from '../protocol/types.generated.js';
import { bet } from './bet.js';
import { betResult } from './bet-result.js';
import type { EventHandler } from './event.js';
import { login } from './login.js';

/** Every callback event, by event_type: the one table a new event is added to. */
export const EVENTS: { readonly [E in CallbackRequest['event_type']]: EventHandler<Extract<CallbackRequest, { event_type: E }>> } = {
  login,
  bet,
  bet_result: betResult,
};

/** The handler of a (schema-valid) request's event. */
export const eventOf = <R extends CallbackRequest>(req: R): EventHandler<R> => EVENTS[req.event_type] as unknown as EventHandler<R>;
