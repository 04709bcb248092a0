/** What a transaction does to its round: a bet opens (or adds to) one, a settlement settles it. */
export type RoundEffect = 'opens' | 'settles';

/*
 * Each event's round effect, as the ledger needs it to keep and forget rounds. The protocol's event
 * registry (src/protocol/registry.ts) records an event's effect here when it registers the event, so
 * the ledger never asks the protocol: it reads its own table.
 */
const effects = new Map<string, RoundEffect>();

/** Records what transactions of `eventType` do to their round (nothing: `undefined`). */
export function recordRoundEffect(eventType: string, effect: RoundEffect | undefined): void {
  if (effect === undefined) effects.delete(eventType);
  else effects.set(eventType, effect);
}

/** What a transaction of the named event does to its round (undefined: no round, or no such event). */
export const roundEffectOf = (eventType: string | undefined): RoundEffect | undefined =>
  eventType === undefined ? undefined : effects.get(eventType);
