/**
 * Where the optimised copies (optimizedGraph.ts) of the models Attest ships are kept: a folder of
 * Attest's storage, as the extension's own folder is not Attest's to write. Apart from
 * optimizedGraph.ts, which loads ONNX Runtime, so that the extension host can name the folder
 * without loading it.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * The folder in `parent` for the copies of the model in `modelDir`, which Attest ships: one per model
 * and per place a version of Attest keeps it, as two versions running at once (a window left open
 * over an update) would otherwise each find the other's copy stale and write their own. The folders
 * of the model's other places, earlier versions', are removed, as far as the system lets (a copy
 * another process maps stays on Windows).
 */
export async function copiesFolderOf(parent: string, modelDir: string): Promise<string> {
  const model = path.basename(modelDir);
  const name = `${model}-${createHash('sha256').update(modelDir).digest('hex').slice(0, 8)}`;
  const versions = (entry: string): boolean => entry.startsWith(`${model}-`) && /^[0-9a-f]{8}$/.test(entry.slice(model.length + 1));
  const others = (await fs.readdir(parent).catch(() => [])).filter((entry) => entry !== name && versions(entry));
  await Promise.all(others.map((entry) => fs.rm(path.join(parent, entry), { recursive: true, force: true }).catch(() => undefined)));
  return path.join(parent, name);
}
