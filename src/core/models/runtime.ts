import { existsSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Whether ONNX Runtime can run models here: onnxruntime-node is installed and holds a native library
 * for this platform. The package for Intel Macs ships without it, because onnxruntime-node has no
 * build for darwin-x64; asking first spares a user a model download that could never run.
 */
export function onnxRuntimeAvailable(): boolean {
  let packageJson: string;
  try {
    packageJson = require.resolve('onnxruntime-node/package.json');
  } catch {
    return false;
  }
  return hasNativeLibrary(path.dirname(packageJson), process.platform, process.arch);
}

/** Whether the onnxruntime-node package in `dir` has the binding for `platform`/`arch`, where it loads it from. */
export function hasNativeLibrary(dir: string, platform: string, arch: string): boolean {
  return existsSync(path.join(dir, 'bin/napi-v6', platform, arch, 'onnxruntime_binding.node'));
}
