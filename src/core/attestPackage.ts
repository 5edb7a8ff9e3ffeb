import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * The folders above `from` whose package.json is Attest's, nearest first: the extension's folder
 * from its bundle in dist/; from the compiled tree, out/ (tsc copies package.json there) and then the
 * repository. So answers are the same from the compiled tree and from a bundle.
 */
export function* attestPackages(from = __dirname): Generator<{ readonly dir: string; readonly version: string }> {
  for (let dir = from; ; dir = path.dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === 'attest' && typeof manifest.version === 'string') yield { dir, version: manifest.version };
    } catch {
      // No package.json here, or not one that parses: look further up.
    }
    if (path.dirname(dir) === dir) return;
  }
}
