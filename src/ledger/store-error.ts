/** A data file that cannot be used as it is. The message names the file and the problem. */
export class StoreError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'StoreError';
  }
}
