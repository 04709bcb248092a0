/**
 * A compaction that fails (a full disk, a folder that became read-only) loses nothing: the logs
 * keep every change. Retrying after every group would cost a failed open or a whole snapshot
 * write per callback and a warning each time: the next attempt waits until the log has grown by
 * compactMinBytes, doubling with each failure in a row (at most 64 times), and only the first
 * failure of a run is reported.
 */
export class CompactionBackoff {
  error: Error | undefined;
  /** Failed compactions in a row. Each one doubles the log growth awaited before the next attempt. */
  failures = 0;
  /** After a failure: no new attempt before the active log holds this many bytes. */
  retryAtBytes = 0;

  constructor(
    private readonly path: string,
    private readonly compactMinBytes: number,
  ) {}

  failed(logBytes: number, what: string, e: Error): void {
    this.error = e;
    const wait = this.compactMinBytes * 2 ** Math.min(this.failures, 6);
    this.failures++;
    this.retryAtBytes = logBytes + wait;
    if (this.failures === 1) {
      process.emitWarning(
        `${this.path}: ${what}; the change log keeps every change. Retrying after each further ${wait} bytes of log (growing while it fails); ` +
          'further failures are not reported until one succeeds. Check the free space and permissions of the folder of --data',
      );
    }
  }

  succeeded(): void {
    if (this.failures) process.emitWarning(`${this.path}: compaction works again, after ${this.failures} failed attempts`);
    this.error = undefined;
    this.failures = 0;
    this.retryAtBytes = 0;
  }
}
