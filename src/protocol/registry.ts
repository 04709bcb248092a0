import type { EventHandler } from './event.js';
import { recordRoundEffect } from '../ledger/round-effects.js';

/*
 * The registry of callback events: the only list of them. ./index.ts registers the built-in ones;
 * everything else (validation, decide, the journal filters, grading, the ledger, the OpenAPI
 * document, the generated schema enums) asks here instead of naming an event. A leaf module:
 * src/protocol/schemas.ts reads it without importing the events' rules.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each handler is typed by its own request
type AnyHandler = EventHandler<any>;

const registry = new Map<string, AnyHandler>();
/** The event names the compiled schemas know (set once src/protocol/schemas.ts has read the registry). */
let compiled: ReadonlySet<string> | undefined;

/** Adds an event; before the app is built (the schemas are compiled once, with the events registered then). */
export function registerEvent(handler: AnyHandler): void {
  const known = registry.get(handler.type);
  if (known === handler) return;
  if (known) throw new Error(`wallet-sim: the event ${handler.type} is registered twice`);
  if (compiled && !compiled.has(handler.type))
    throw new Error(
      `wallet-sim: the event ${handler.type} is registered after the schemas were compiled: register it before importing the app`,
    );
  registry.set(handler.type, handler);
  recordRoundEffect(handler.type, handler.round);
}

/** Every registered event, in registration order (the built-in ones first). */
export const registeredEvents = (): readonly AnyHandler[] => [...registry.values()];

/** The event of this name, or undefined when there is none. */
export const eventNamed = (name: string | undefined): AnyHandler | undefined => (name === undefined ? undefined : registry.get(name));

export { roundEffectOf } from '../ledger/round-effects.js';

/** Called by src/protocol/schemas.ts with the event names it compiled: a later event would be missing from them. */
export function schemasCompiledWith(names: ReadonlySet<string>): void {
  compiled = names;
}
