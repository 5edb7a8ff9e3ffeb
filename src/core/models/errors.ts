/**
 * A model that cannot be used as it is: a missing or broken file of its folder, a config that does
 * not say what Attest needs, an export whose inputs or outputs it cannot drive. The message names the
 * file and what to do; `file` is set when one file is at fault.
 */
export class ModelError extends Error {
  override readonly name = 'ModelError';

  constructor(
    message: string,
    readonly file?: string,
  ) {
    super(message);
  }
}
