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

/**
 * The store cannot serve now (Redis unreachable, frozen, or lost the wallet's state): the message
 * says why and what to do. Callbacks answer R1 with it; the admin API answers 503 STORE_UNREACHABLE
 * with it (the app's error handler, whichever route read the store).
 */
export class StoreUnavailable extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StoreUnavailable';
  }
}
