/*
 * Checks of what a page receives, each a type guard the compiler holds to the protocol's types: a
 * `record` must check every field of its type, a `messages` check every message, so a field or a
 * message added to a protocol breaks the page's compile until the page checks it.
 */

export type Check<T> = (value: unknown) => value is T;

/** One check for each field of `T`, optional fields included. */
export type Fields<T> = { readonly [Key in keyof T]-?: Check<T[Key]> };

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === 'object' && value !== null;
export const isString: Check<string> = (value) => typeof value === 'string';
export const isBoolean: Check<boolean> = (value) => typeof value === 'boolean';
export const isTrue: Check<true> = (value) => value === true;
export const isNumber: Check<number> = (value): value is number => typeof value === 'number' && Number.isFinite(value);
export const isInteger: Check<number> = (value): value is number => Number.isInteger(value);
export const isCount: Check<number> = (value): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

export const optional =
  <T>(check: Check<T>): Check<T | undefined> =>
  (value): value is T | undefined =>
    value === undefined || check(value);

export const orNull =
  <T>(check: Check<T>): Check<T | null> =>
  (value): value is T | null =>
    value === null || check(value);

export const listOf =
  <T>(check: Check<T>): Check<readonly T[]> =>
  (value): value is readonly T[] =>
    Array.isArray(value) && value.every(check);

/** One of the protocol's words: `members` is one of its lists. */
export const oneOf =
  <T extends string>(members: readonly T[]): Check<T> =>
  (value): value is T =>
    members.some((member) => member === value);

/** `check`, and then what a type cannot say. */
export const where =
  <T>(check: Check<T>, holds: (value: T) => boolean): Check<T> =>
  (value): value is T =>
    check(value) && holds(value);

export function record<T>(fields: Fields<T>): Check<T> {
  const entries: [string, Check<unknown>][] = Object.entries(fields);
  return (value): value is T => isObject(value) && entries.every(([key, check]) => check(value[key]));
}

/** The fields of the message of `Type` in the union `Message`, its `type` aside. */
type Variant<Message extends { readonly type: string }, Type extends Message['type']> = Fields<Omit<Extract<Message, { readonly type: Type }>, 'type'>>;

/** A check of a union of messages told apart by `type`: the fields of each, and no other type. */
export function messages<Message extends { readonly type: string }>(variants: { readonly [Type in Message['type']]: Variant<Message, Type> }): Check<Message> {
  const checks = new Map<string, Check<unknown>>(Object.entries<Fields<unknown>>(variants).map(([type, fields]) => [type, record(fields)]));
  return (value): value is Message => {
    if (!isObject(value) || typeof value.type !== 'string') return false;
    return checks.get(value.type)?.(value) ?? false;
  };
}
