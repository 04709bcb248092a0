import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { EVENT_SITES, listAt, withEvents } from './event-schemas.js';
import { registeredEvents, schemasCompiledWith } from './registry.js';
import { SCHEMAS_DIR } from '../kernel/paths.js';
import { validatorAtFirstCall } from '../http/validator-at-first-call.js';

export interface JsonSchema {
  $id: string;
  [key: string]: unknown;
}

/** The files of schemas/ as they are, by $id. */
export const schemaFiles: readonly JsonSchema[] = readdirSync(SCHEMAS_DIR)
  .filter((f) => f.endsWith('.schema.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(SCHEMAS_DIR, f), 'utf8')) as JsonSchema);

/**
 * Every schema, by $id: the single source of the wire contract. The files of schemas/, with the
 * events registered so far (src/protocol/registry.ts) in their lists of events: an event registered
 * before the app is built is validated, filtered, matched and documented like a built-in one.
 */
export const schemas: readonly JsonSchema[] = withEvents(schemaFiles, registeredEvents());

/** Every event_type the schemas accept, in their order (the built-in ones first). */
export const eventTypes = listAt(
  schemas.find((s) => s.$id === 'Envelope')!,
  EVENT_SITES.find((s) => s.$id === 'Envelope')!,
) as readonly string[];
schemasCompiledWith(new Set(eventTypes));

/**
 * The ajv options used everywhere, Fastify's validator included: no coercion, no defaults, every
 * error, each with the schema around it (`verbose`: describeErrors names the allowed properties).
 */
export const ajvOptions = {
  allErrors: true,
  verbose: true,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  discriminator: true,
  strict: false,
} as const;

let shared: Ajv | undefined;

/**
 * A validator for one schema by $id, from an ajv instance that knows all of them. Compiled at its
 * first call, not when its module loads: modules take theirs at load, and compiling them all
 * (Expectations alone about 0.2 s) held up every CLI start whether or not it used them. `now`:
 * compiled at once, for a validator whose first call must not wait (the callback's: a reply's time
 * is graded).
 */
export function validator<T>(id: string, when: 'at first use' | 'now' = 'at first use'): ValidateFunction<T> {
  if (!schemas.some((s) => s.$id === id)) throw new Error(`wallet-sim: no schema with $id ${id} in ${SCHEMAS_DIR}`);
  // (compiled now: the function itself, no wrapper on the callback's path)
  if (when === 'now') return compile<T>(id);
  return validatorAtFirstCall(() => compile<T>(id));
}

function compile<T>(id: string): ValidateFunction<T> {
  if (!shared) {
    shared = new Ajv(ajvOptions);
    for (const s of schemas) shared.addSchema(s);
  }
  return shared.getSchema<T>(id)!;
}

export { describeErrors, WHOLE_NUMBER } from '../kernel/documents.js';
