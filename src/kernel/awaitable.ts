/** A value, or a promise of it: what this process holds answers at once, a shared store (Redis) later. */
export type Awaitable<T> = T | Promise<T>;

/**
 * `next(value)`: at once when the value is here, once it resolves otherwise. A callback served
 * from memory then makes no promise and waits for no turn of the event loop between its steps.
 */
export function andThen<T, U>(value: Awaitable<T>, next: (value: T) => Awaitable<U>): Awaitable<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
