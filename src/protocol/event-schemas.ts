import type { EventHandler, EventSchema } from './event.js';

/*
 * Where the schemas in schemas/ list the events. Each list is derived from the registry: written
 * into the files by `npm run gen:types` (test/gen-types.test.ts fails when they are stale), and
 * extended at run time by an event registered outside the package (src/protocol/schemas.ts).
 */

type Handler = Pick<EventHandler<{ event_type: string }>, 'type' | 'schema' | 'round'>;

/** The $id of an event's request schema. */
export const schemaIdOf = (e: Handler): string => (typeof e.schema === 'string' ? e.schema : e.schema.$id);

/** One place a schema lists events: the schema's $id, the path to the list, the list for these events. */
export interface EventSite {
  $id: string;
  path: readonly string[];
  value(events: readonly Handler[]): unknown[];
}

const names = (events: readonly Handler[]) => events.map((e) => e.type);

export const EVENT_SITES: readonly EventSite[] = [
  { $id: 'CallbackRequest', path: ['oneOf'], value: (events) => events.map((e) => ({ $ref: `${schemaIdOf(e)}#` })) },
  { $id: 'Envelope', path: ['properties', 'event_type', 'enum'], value: names },
  { $id: 'JournalMatch', path: ['properties', 'event_type', 'enum'], value: names },
  { $id: 'Scenario', path: ['definitions', 'rule', 'properties', 'when', 'properties', 'event_type', 'enum'], value: names },
  // The ledger's rows are the events that move money: those of a round.
  { $id: 'LedgerRow', path: ['properties', 'event_type', 'enum'], value: (events) => names(events.filter((e) => e.round)) },
];

/** The list at a site of a schema (throws when the schema no longer has it: the site table is stale). */
export function listAt(schema: EventSchema, site: EventSite): unknown[] {
  let node: unknown = schema;
  for (const key of site.path) node = (node as Record<string, unknown> | undefined)?.[key];
  if (!Array.isArray(node)) throw new Error(`wallet-sim: schema ${site.$id} has no list of events at /${site.path.join('/')}`);
  return node;
}

/**
 * The schemas with the events' lists extended by the events they lack, and the request schemas of
 * events defined outside schemas/ added. A copy: the documents given are not changed.
 */
export function withEvents(schemas: readonly EventSchema[], events: readonly Handler[]): EventSchema[] {
  const ids = new Set(schemas.map((s) => s.$id));
  const own = events.flatMap((e) => (typeof e.schema === 'object' && !ids.has(e.schema.$id) ? [e.schema] : []));
  return [...schemas, ...own].map((schema) => {
    const sites = EVENT_SITES.filter((s) => s.$id === schema.$id);
    if (sites.length === 0) return schema;
    const copy = structuredClone(schema);
    for (const site of sites) {
      const list = listAt(copy, site);
      const seen = new Set(list.map((v) => JSON.stringify(v)));
      for (const v of site.value(events)) if (!seen.has(JSON.stringify(v))) list.push(v);
    }
    return copy;
  });
}
