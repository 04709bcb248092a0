/** A validation function as Ajv makes them: its reasons for a failure in `errors`. */
export type Validate = ((data: unknown) => unknown) & { errors?: unknown };

/**
 * A validator compiled at its first call. Its caller reads a failed validation's reasons from the
 * function it called (`errors`, as Ajv's own functions carry them), so they are copied onto it.
 */
export function validatorAtFirstCall<F extends Validate>(compile: () => F): F {
  let compiled: F | undefined;
  const validate = ((data: unknown) => {
    compiled ??= compile();
    const valid = compiled(data);
    validate.errors = compiled.errors;
    return valid;
  }) as F;
  return validate;
}
