import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Attest's version, from its package.json: the nearest one above this file that is Attest's, so the
 * answer is the same from the compiled tree and from a bundle.
 */
export function attestVersion(from = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === 'attest' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // No package.json here, or not one that parses: look further up.
    }
    if (path.dirname(dir) === dir) return 'unknown';
  }
}
