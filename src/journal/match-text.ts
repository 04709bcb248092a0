import { schemas } from '../protocol/schemas.js';
import type { JournalMatch } from './match.js';

/*
 * The filter language written as text: query parameters (GET /admin/journal, GET /admin/events)
 * and `wallet-sim tail`'s options. Its fields come from the schema, so a field added there is
 * accepted everywhere. (Apart from src/journal/match.ts, which the dashboard's types reach and
 * which therefore reads no file.)
 */

/** One field of the language as its schema defines it. */
export interface MatchFieldSchema {
  type: 'string' | 'boolean';
  enum?: string[];
  description?: string;
}

/**
 * The language's fields by name, read from the schema: the routes' query parameters and tail's
 * options are made from them, so a field added to the schema is accepted everywhere.
 */
export const MATCH_FIELDS: Readonly<Record<string, MatchFieldSchema>> = (
  schemas.find((s) => s.$id === 'JournalMatch') as unknown as { properties: Record<string, MatchFieldSchema> }
).properties;

/**
 * A match given as text (query parameters, command-line options), already checked against the
 * text form of each field: a boolean is "true" or "false". Other names (paging) are left out.
 */
export function matchOfText(values: Readonly<Record<string, unknown>>): JournalMatch {
  const match: Record<string, string | boolean> = {};
  for (const [name, field] of Object.entries(MATCH_FIELDS)) {
    const value = values[name];
    if (typeof value === 'string') match[name] = field.type === 'boolean' ? value === 'true' : value;
  }
  return match as JournalMatch;
}
