/** Reading JSON from outside (a service's answer, a file on disk): what a value is, checked before it is used. */

/** A JSON object whose fields are not checked yet. */
export type Json = Record<string, unknown>;

/** An object: not null, not an array. */
export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An array of strings only. */
export function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** A string with more than whitespace in it, trimmed; undefined for anything else. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** JSON read from outside, or undefined where the text is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
