import { type Finding, finding } from '../findings.js';
import type { ResultDetail } from '../types.generated.js';
import { validator } from '../schemas.js';

const validate = validator<ResultDetail>('ResultDetail');

/**
 * result_detail must be a JSON object (else R3). Missing or malformed baccarat keys are only
 * warnings: other game types carry other keys.
 */
export function resultDetailFindings(text: string): Finding[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return [finding('RESULT_DETAIL_NOT_JSON', `result_detail is not JSON: ${(e as Error).message}`, '/data/result_detail')];
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    return [
      finding(
        'RESULT_DETAIL_NOT_JSON',
        `result_detail is JSON ${Array.isArray(doc) ? 'array' : typeof doc}, not an object`,
        '/data/result_detail',
      ),
    ];
  }
  if (validate(doc)) return [];
  return (validate.errors ?? []).map((e) => {
    const where = `/data/result_detail${e.instancePath}`;
    if (e.keyword === 'pattern')
      return finding(
        'CARD_MALFORMED',
        `card ${JSON.stringify(valueAt(doc, e.instancePath))} at ${where} is not a suit letter (S, H, D, C) followed by 1-13`,
        where,
      );
    const missing = e.keyword === 'required' ? ` ${(e.params as { missingProperty: string }).missingProperty}` : '';
    return finding('RESULT_DETAIL_INCOMPLETE', `result_detail${e.instancePath}${missing} ${e.message ?? 'is invalid'}`, where);
  });
}

function valueAt(doc: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);
}
