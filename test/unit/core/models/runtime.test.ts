import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { hasNativeLibrary, onnxRuntimeAvailable } from '../../../../src/core/models/runtime';
import { makeTempDir } from '../../support/tempDir';

describe('whether ONNX Runtime can run here', () => {
  it('finds the binding onnxruntime-node ships for this machine', () => {
    assert.equal(onnxRuntimeAvailable(), true);
  });

  it('tells a package without this platform\'s binding, as the one for Intel Macs is, from one with it', async () => {
    const { dir, remove } = await makeTempDir();
    try {
      await fs.mkdir(path.join(dir, 'bin/napi-v6/darwin/arm64'), { recursive: true });
      await fs.writeFile(path.join(dir, 'bin/napi-v6/darwin/arm64/onnxruntime_binding.node'), '');
      assert.equal(hasNativeLibrary(dir, 'darwin', 'x64'), false);
      assert.equal(hasNativeLibrary(dir, 'darwin', 'arm64'), true);
    } finally {
      await remove();
    }
  });
});
