import assert from 'node:assert/strict';
import { SourceError } from '../../../src/core/sources/types';
import type { SourceErrorKind } from '../../../src/core/sources/health';
import type { SourceId } from '../../../src/core/sources/ids';

/** Resolves to the SourceError the promise rejects with, failing the test when it resolves or rejects otherwise. */
async function failure(promise: Promise<unknown>): Promise<SourceError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof SourceError, `expected a SourceError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the request to fail');
}

/** Assertions on the errors of one source's client: the kind of failure, and that the source is named. */
export function sourceErrorAsserts(source: SourceId): {
  failsWith: (promise: Promise<unknown>, kind: SourceErrorKind) => Promise<SourceError>;
  assertMalformed: (f: () => unknown) => void;
} {
  return {
    failsWith: async (promise, kind) => {
      const error = await failure(promise);
      assert.equal(error.kind, kind, error.message);
      assert.equal(error.source, source);
      return error;
    },
    assertMalformed: (f) => assert.throws(f, (error: unknown) => error instanceof SourceError && error.kind === 'malformed' && error.source === source),
  };
}
