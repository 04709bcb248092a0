import { readFileSync } from 'node:fs';
import type { Expectations } from '../protocol/types.generated.js';
import { describeErrors, validator } from '../schemas.js';

const validate = validator<Expectations>('Expectations');

export class ExpectationsError extends Error {
  override name = 'ExpectationsError';
}

/** Reads and validates an expectations file; errors name the file, the JSON pointer and the reason. */
export function loadExpectations(file: string): Expectations {
  let text: string;
  try { text = readFileSync(file, 'utf8'); } catch (e) {
    throw new ExpectationsError(`${file}: cannot read: ${(e as Error).message}`);
  }
  let doc: unknown;
  try { doc = JSON.parse(text); } catch (e) {
    throw new ExpectationsError(`${file}: not JSON: ${(e as Error).message}`);
  }
  return checkExpectations(doc, file);
}

export function checkExpectations(doc: unknown, source = 'expectations'): Expectations {
  if (validate(doc)) return doc;
  const problems = describeErrors(validate.errors).map((d) => `${source}: ${d.pointer} ${d.message}`);
  throw new ExpectationsError([...new Set(problems)].join('\n'));
}
