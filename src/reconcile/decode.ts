import { FileProblem } from './csv.js';

/** A file that is not UTF-8: what it is, and the command that converts it. */
export class EncodingProblem extends Error {
  override name = 'EncodingProblem';
}

const BOMS: [number[], string, string][] = [
  // UTF-32 first: its little-endian mark begins with UTF-16's.
  [[0xff, 0xfe, 0x00, 0x00], 'UTF-32 LE', 'UTF-32LE'],
  [[0x00, 0x00, 0xfe, 0xff], 'UTF-32 BE', 'UTF-32BE'],
  [[0xff, 0xfe], 'UTF-16 LE', 'UTF-16LE'],
  [[0xfe, 0xff], 'UTF-16 BE', 'UTF-16BE'],
];

const convert = (from: string, file: string) =>
  'reconcile reads UTF-8 (with or without a byte order mark): convert it, ' +
  `e.g. iconv -f ${from} -t UTF-8 ${file} > utf8-${file.replace(/^.*[\\/]/, '')}`;

/** The length of the UTF-8 sequence a lead byte begins, and the range its second byte must be in (RFC 3629). */
function sequence(b: number): [number, number, number] | undefined {
  if (b >= 0xc2 && b <= 0xdf) return [2, 0x80, 0xbf];
  if (b === 0xe0) return [3, 0xa0, 0xbf];
  if ((b >= 0xe1 && b <= 0xec) || b === 0xee || b === 0xef) return [3, 0x80, 0xbf];
  if (b === 0xed) return [3, 0x80, 0x9f]; // no surrogates
  if (b === 0xf0) return [4, 0x90, 0xbf];
  if (b >= 0xf1 && b <= 0xf3) return [4, 0x80, 0xbf];
  if (b === 0xf4) return [4, 0x80, 0x8f];
  return undefined;
}

/** Where the first byte that is not UTF-8 is in `bytes` (undefined: none, or only an unfinished sequence at the end). */
export function firstInvalid(bytes: Uint8Array): number | undefined {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    const s = sequence(b);
    if (!s) return i;
    const [len, lo, hi] = s;
    for (let k = 1; k < len; k++) {
      if (i + k >= bytes.length) return undefined;
      const c = bytes[i + k]!;
      if (k === 1 ? c < lo || c > hi : c < 0x80 || c > 0xbf) return i;
    }
    i += len;
  }
  return undefined;
}

/**
 * Decodes a file's bytes as UTF-8, a chunk at a time, and refuses anything else by name: a UTF-16
 * or UTF-32 byte order mark, NUL bytes (UTF-16 without a mark), or the first byte that is not
 * UTF-8 (its line and column: a Latin-1 export), never replacing it with U+FFFD in silence.
 */
export class StrictUtf8 {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  private first = true;
  private line = 1;
  /** Characters on the current line so far (for the column of a bad byte). */
  private column = 0;
  /** The bytes of an unfinished sequence at the end of the last chunk. */
  private tail: Uint8Array = new Uint8Array(0);

  constructor(private readonly file: string) {}

  decode(chunk: Uint8Array): string {
    if (this.first) {
      this.first = false;
      for (const [mark, name, iconv] of BOMS)
        if (mark.every((b, k) => chunk[k] === b)) {
          const hex = mark.map((b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');
          throw new EncodingProblem(`is ${name} (it begins with the byte order mark ${hex}): ${convert(iconv, this.file)}`);
        }
    }
    const withTail = () => {
      const bytes = new Uint8Array(this.tail.length + chunk.length);
      bytes.set(this.tail);
      bytes.set(chunk, this.tail.length);
      return bytes;
    };
    const nul = chunk.indexOf(0);
    if (nul >= 0)
      this.fail(withTail(), this.tail.length + nul, 'a NUL byte: the file looks like UTF-16 or UTF-32 without a byte order mark', 'UTF-16');
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: true });
    } catch {
      const bytes = withTail();
      const at = firstInvalid(bytes) ?? 0;
      const b = bytes[at]!;
      const lone = b >= 0xa0 && (bytes[at + 1] === undefined || bytes[at + 1]! < 0x80);
      this.fail(
        bytes,
        at,
        `byte 0x${b.toString(16).toUpperCase()} is not UTF-8${lone ? ' (a Latin-1 / Windows-1252 file?)' : ''}`,
        lone ? 'WINDOWS-1252' : '<its encoding>',
      );
    }
    this.keepTail(chunk);
    // A UTF-8 byte order mark is fine (spreadsheet exports); it is no column of the first line.
    this.count(this.line === 1 && this.column === 0 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    return text;
  }

  /** Throws when the file ends inside a sequence. */
  end(): string {
    try {
      return this.decoder.decode();
    } catch {
      throw new FileProblem(this.line, this.column + 1, `the file ends inside a UTF-8 sequence: ${convert('<its encoding>', this.file)}`);
    }
  }

  private keepTail(chunk: Uint8Array) {
    // At most 3 bytes of an unfinished sequence: from the last lead byte, if its sequence is cut.
    let k = chunk.length - 1;
    while (k >= 0 && k >= chunk.length - 3 && (chunk[k]! & 0xc0) === 0x80) k--;
    const lead = k >= 0 ? sequence(chunk[k]!) : undefined;
    this.tail = lead && chunk.length - k < lead[0] ? chunk.slice(k) : new Uint8Array(0);
  }

  private count(text: string) {
    let nl = text.indexOf('\n');
    if (nl < 0) {
      this.column += text.length;
      return;
    }
    let last = nl;
    while (nl >= 0) {
      this.line++;
      last = nl;
      nl = text.indexOf('\n', nl + 1);
    }
    this.column = text.length - last - 1;
  }

  /** The line and column of `bytes[at]`, counted on from what was decoded before. */
  private fail(bytes: Uint8Array, at: number, what: string, iconv: string): never {
    const before = new TextDecoder('utf-8').decode(bytes.subarray(0, at));
    this.count(before);
    throw new FileProblem(this.line, this.column + 1, `${what}: ${convert(iconv, this.file)}`);
  }
}
