import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** A fresh directory under the system's temporary folder; `remove` deletes it and all it holds. */
export async function makeTempDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-test-'));
  return { dir, remove: () => fs.rm(dir, { recursive: true, force: true }) };
}

/** Every file under `dir`, with its path relative to `dir`. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

/** Every file of a folder and its bytes, to show that something left it as it was. */
export async function snapshot(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const name of (await fs.readdir(dir)).sort()) files.set(name, (await fs.readFile(path.join(dir, name))).toString('base64'));
  return files;
}
