export interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (e: Error) => void;
}
export function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Callers await their own copy; this keeps a group nobody waits for from crashing the process.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
