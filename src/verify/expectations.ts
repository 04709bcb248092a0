import { checkDocument, DocumentError, loadJsonDocument } from '../kernel/documents.js';
import type { Expectations } from '../protocol/types.generated.js';
import { validator } from '../protocol/schemas.js';

const validate = validator<Expectations>('Expectations');

/** An expectations file that cannot be used: every problem, each with its JSON pointer. */
export class ExpectationsError extends DocumentError {
  override name = 'ExpectationsError';
}

/** Reads and validates an expectations file; errors name the file, the JSON pointer and the reason. */
export function loadExpectations(file: string): Expectations {
  return loadJsonDocument(file, checkExpectations, ExpectationsError, 'expectations files');
}

export function checkExpectations(doc: unknown, source = 'expectations'): Expectations {
  return checkDocument(doc, validate, source, ExpectationsError);
}
