import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { REPO_ROOT } from './support/helpers';

const CORE = path.join(REPO_ROOT, 'src/core');

/** Issue 37's bound: an adapter that reaches into more of core than this is wiring core's pieces itself. */
const MOST_CORE_MODULES_PER_ADAPTER = 15;

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const at = path.join(dir, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(at);
    return entry.name.endsWith('.ts') ? [at] : [];
  });
}

function resolved(from: string, specifier: string): string {
  const base = path.resolve(path.dirname(from), specifier);
  return [`${base}.ts`, path.join(base, 'index.ts'), base].find((candidate) => existsSync(candidate) && statSync(candidate).isFile()) ?? base;
}

/** The files of src/core that any file of the adapter imports: static, dynamic and type-only imports and re-exports alike. */
function coreModulesOf(adapter: string): string[] {
  const reached = new Set<string>();
  for (const file of typeScriptFiles(path.join(REPO_ROOT, 'src', adapter))) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolved(file, fileName);
      if (!path.relative(CORE, target).startsWith('..')) reached.add(path.relative(REPO_ROOT, target));
    }
  }
  return [...reached].sort();
}

describe('architecture: the adapters reach core through its app layer', () => {
  for (const adapter of ['extension', 'cli']) {
    it(`src/${adapter} imports at most ${MOST_CORE_MODULES_PER_ADAPTER} modules of src/core`, () => {
      const modules = coreModulesOf(adapter);
      assert.ok(modules.length <= MOST_CORE_MODULES_PER_ADAPTER, `src/${adapter} imports ${modules.length} core modules:\n${modules.join('\n')}`);
    });
  }

  it('counts a dynamic import and a type-only import of core as reaching it', () => {
    const { importedFiles } = ts.preProcessFile("import type { A } from '../core/a';\nconst { b } = await import('../core/b');\n", true, true);
    assert.deepEqual(
      importedFiles.map((f) => f.fileName),
      ['../core/a', '../core/b'],
    );
  });
});
