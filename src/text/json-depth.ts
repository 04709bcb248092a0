/*
 * How deep a JSON document may nest. Every recursive walk after parsing (validation, the
 * fingerprint, serialisation for GET /admin/scenario or the journal) would overflow the stack on a
 * document nested tens of thousands deep, so such a document is refused where it comes in.
 */

/** Far beyond any scenario or admin body (a rule's reply body nests as deep as its author likes, not 60 levels). */
export const MAX_DOCUMENT_DEPTH = 64;

const segment = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The JSON pointer of the first value nested deeper than `max` levels (the document itself is
 * level 1), or undefined when none is. Without recursion, so that the check cannot overflow itself.
 */
export function depthExceededAt(value: unknown, max: number): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const stack: [object, number, string][] = [[value, 1, '']];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [node, depth, pointer] = item;
    if (depth > max) return pointer;
    for (const [key, child] of Object.entries(node)) {
      if (child !== null && typeof child === 'object') stack.push([child as object, depth + 1, `${pointer}/${segment(key)}`]);
    }
  }
  return undefined;
}

/** The problem of a document nested too deep, as a pointer and a message that says what to do; undefined when fine. */
export function depthProblem(value: unknown, max = MAX_DOCUMENT_DEPTH): { pointer: string; message: string } | undefined {
  const pointer = depthExceededAt(value, max);
  if (pointer === undefined) return undefined;
  return { pointer, message: `nests deeper than ${max} levels; no wallet-sim document needs that many: flatten it` };
}
