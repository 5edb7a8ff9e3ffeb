/** A copy of `array` twice as long (at least `least` long): typed arrays that grow as a scan finds more. */
export function doubled(array: Uint32Array, least = 0): Uint32Array {
  const grown = new Uint32Array(Math.max(array.length * 2, least));
  grown.set(array);
  return grown;
}
