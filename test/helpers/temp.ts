// A test's temporary directory: made under the system's temp dir and removed when the test file's
// process exits, whatever the outcome (a test that fails keeps nothing behind in /tmp either).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory `<tmp>/<prefix>XXXXXX`, removed with everything in it when the process exits. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
