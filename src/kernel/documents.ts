import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { depthProblem } from '../text/json-depth.js';
import { jsonSyntaxError, plainJsonHint } from '../text/json-position.js';
import { closest } from '../text/did-you-mean.js';

/*
 * One loader for the JSON documents a user writes (scenario files, expectations files): read,
 * parse, validate; every problem names the file, the JSON pointer and the reason.
 */

export interface DocumentProblem {
  pointer: string;
  message: string;
}

/** A document that cannot be used: every problem, each with its JSON pointer ('' = the whole document). */
export class DocumentError extends Error {
  constructor(
    readonly source: string,
    readonly problems: DocumentProblem[],
  ) {
    const lines = problems.map((p) => `${source}: ${p.pointer ? `${p.pointer} ` : ''}${p.message}`);
    super([...new Set(lines)].join('\n'));
    this.name = 'DocumentError';
  }
}

/** The error class a kind of document fails with (ScenarioError, ExpectationsError). */
export type DocumentErrorClass = new (source: string, problems: DocumentProblem[]) => DocumentError;

/** Checks a parsed document against its schema; throws `Failure` naming every problem. */
export function checkDocument<T>(doc: unknown, validate: ValidateFunction<T>, source: string, Failure: DocumentErrorClass): T {
  if (validate(doc)) return doc;
  throw new Failure(source, describeErrors(validate.errors));
}

/**
 * Reads, parses and checks a JSON document file. `check` validates the parsed document (and may
 * compile it); a file that cannot be read or parsed fails with `Failure` too.
 */
export function loadJsonDocument<T>(
  path: string,
  check: (doc: unknown, source: string) => T,
  Failure: DocumentErrorClass,
  kind = 'these files',
): T {
  let text: string;
  try {
    text = withoutByteOrderMark(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Failure(path, [{ pointer: '', message: unreadable(e as NodeJS.ErrnoException) }]);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Failure(path, [
      { pointer: '', message: `is not valid JSON: ${jsonSyntaxError(text, e as Error)}${plainJsonHint(text, kind)}` },
    ]);
  }
  const tooDeep = depthProblem(doc);
  if (tooDeep) throw new Failure(path, [tooDeep]);
  return check(doc, path);
}

/**
 * A file's text without its leading UTF-8 byte-order mark: Windows editors save one, and JSON.parse
 * takes it for a stray (invisible) token. Most JSON tools skip it; so do we.
 */
export const withoutByteOrderMark = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/** Why a file the user named cannot be read, and what to do (every command's input files say it alike). */
export function unreadable(e: NodeJS.ErrnoException): string {
  if (e.code === 'ENOENT') return `there is no such file (looked for it from ${process.cwd()}): check the path`;
  if (e.code === 'EISDIR') return 'is a directory: give the path of a file in it';
  return `cannot be read: ${e.code ?? e.message}`;
}

/** The pattern of a currency code in a scenario (schemas/scenario.schema.json): USD, KRW, USDT. */
export const CURRENCY_CODE = '^[A-Z0-9]{1,10}$';
const currencyHint = (given: unknown) =>
  typeof given === 'string' && new RegExp(CURRENCY_CODE).test(given.toUpperCase())
    ? `did you mean ${given.toUpperCase()}?`
    : 'e.g. USD, KRW';

/** The pattern of a whole number written as text (a query parameter such as limit). */
export const WHOLE_NUMBER = '^[0-9]+$';

/** A value sent as an HTTP header (Api-Id, Api-Key): printable ASCII, no space at either end. */
export const HEADER_TEXT = '^[!-~]([ -~]*[!-~])?$';

/** Why `value` cannot be sent as an HTTP header value, naming the first character that cannot; undefined when it can. */
export function headerTextProblem(value: string): string | undefined {
  if (new RegExp(HEADER_TEXT).test(value)) return undefined;
  if (value === '') return 'is empty';
  const at = [...value].findIndex((c) => c < ' ' || c > '~');
  if (at < 0) return 'begins or ends with a space; an HTTP header value cannot';
  const c = [...value][at]!;
  const name = `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  return `has ${c >= ' ' ? `"${c}" (${name})` : name} at character ${at + 1}: an HTTP header value is printable ASCII only (a pasted placeholder such as "…"?)`;
}

/**
 * One readable line per ajv error: "/data/bets/0/bet_amount must be > 0". Needs ajv's `verbose`
 * (the schema around the error). `listAllowed: false` when the caller names the allowed properties
 * itself (a bad query's reply lists the route's parameters once).
 */
/** An array's item as an example, from its schema's required properties (or its first few): `{"user_id": …, "balance": …}`. */
function itemShape(schema: unknown): string | undefined {
  const items = (schema as { items?: { properties?: object; required?: string[] } } | undefined)?.items;
  if (!items?.properties) return undefined;
  const names = items.required?.length ? items.required : Object.keys(items.properties).slice(0, 3);
  return `{ ${names.map((n) => `"${n}": …`).join(', ')} }`;
}

export function describeErrors(
  errors: readonly ErrorObject[] | null | undefined,
  { listAllowed = true } = {},
): { pointer: string; message: string }[] {
  // A property name refused says so twice (its pattern, then "property name must be valid"): once is enough.
  const all = errors ?? [];
  const said = all.filter((e) => e.keyword !== 'propertyNames' || !all.some((o) => o !== e && o.instancePath === e.instancePath));
  return said.map((e) => {
    const pointer =
      e.keyword === 'required'
        ? `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`
        : e.keyword === 'additionalProperties'
          ? `${e.instancePath}/${(e.params as { additionalProperty: string }).additionalProperty}`
          : e.instancePath;
    const message =
      e.keyword === 'required'
        ? 'is required'
        : e.keyword === 'additionalProperties'
          ? notAllowed((e.params as { additionalProperty: string }).additionalProperty, propertiesOf(e.parentSchema), listAllowed)
          : e.keyword === 'minProperties' && (e.params as { limit: number }).limit === 1
            ? isEmpty(e.parentSchema)
            : e.keyword === 'pattern' && (e.params as { pattern: string }).pattern === WHOLE_NUMBER
              ? 'must be a whole number (digits only)'
              : e.keyword === 'pattern' && (e.params as { pattern: string }).pattern === HEADER_TEXT
                ? headerTextProblem(String(e.data))!
                : e.keyword === 'pattern' && (e.params as { pattern: string }).pattern === CURRENCY_CODE
                  ? `is not a currency code: capital letters and digits, 1 to 10 of them (${currencyHint(e.data)})`
                  : e.keyword === 'type' && (e.params as { type: string }).type === 'array' && itemShape(e.parentSchema)
                    ? `must be an array of objects, e.g. [${itemShape(e.parentSchema)}]`
                    : e.keyword === 'enum'
                      ? `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`
                      : (e.message ?? 'is invalid');
    return { pointer: pointer || '/', message };
  });
}

/** The properties a schema names, in its order (none when ajv was not asked for the schema: `verbose`). */
function propertiesOf(schema: unknown): string[] {
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  return properties && typeof properties === 'object' ? Object.keys(properties).filter((k) => k !== '$schema') : [];
}

/** "is not an allowed property (did you mean event_type?); allowed here: event_type, user_id, …" */
function notAllowed(given: string, allowed: string[], listAllowed: boolean): string {
  const meant = closest(given, allowed);
  const list = listAllowed && allowed.length ? `; allowed here: ${allowed.join(', ')}` : '';
  return `is not an allowed property${meant === undefined ? '' : ` (did you mean ${meant}?)`}${list}`;
}

/** An object that must say something: "is empty: give it what the rule does (one of code, delay_ms, …)". */
function isEmpty(schema: unknown): string {
  const description = (schema as { description?: unknown } | undefined)?.description;
  const what =
    typeof description === 'string' ? description.replace(/\.$/, '').replace(/^./, (c) => c.toLowerCase()) : 'at least one property';
  const allowed = propertiesOf(schema);
  return `is empty: give it ${what}${allowed.length ? ` (one of ${allowed.join(', ')})` : ''}`;
}
