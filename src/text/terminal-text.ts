/*
 * Text a caller chose (a user_id, a game_no, a reason quoting them) printed to a terminal: an
 * ESC, OSC or BEL in it could recolour, retitle or rewrite the user's terminal. Control
 * characters are shown escaped instead, as JSON would write them, with or without colour.
 */

// C0 (but tab), DEL, C1; and the line and paragraph separators, which break a line like \n.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g;

const escaped = (c: string) => {
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
};

/** `s` with every control character written as `\n`, `\r` or `\uXXXX`: safe to print. */
export const terminalText = (s: string): string => s.replace(CONTROL, escaped);
