// The linter guards the structure, not the style (Prettier owns that): no import circles, no `vscode` in
// core, no `any`. Each rule here is one of the developers' guide's rules that a review alone kept before.
import { defineConfig } from 'eslint/config';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

// import-x/no-cycle passes over imports that name only types (`import type`, `import { type X }`). A circle of
// types still ties modules that cannot then be read, moved or changed one without the other, so this
// parser hands every import and re-export to the linter as one of values; no rule here reads the difference.
const everyImportCounts = {
  meta: { name: 'typescript-eslint-every-import-counts' },
  parseForESLint(code, options) {
    const parsed = tseslint.parser.parseForESLint(code, options);
    for (const statement of parsed.ast.body) {
      for (const node of [statement, ...(statement.specifiers ?? [])]) {
        if (node.importKind === 'type') node.importKind = 'value';
        if (node.exportKind === 'type' && statement.source) node.exportKind = 'value';
      }
    }
    return parsed;
  },
};

const vscodeInCore = 'src/core/ is plain TypeScript that the CLI runs too: the editor reaches it through src/extension/.';

export default defineConfig(
  // What .gitignore keeps out of the repository, and the fixtures, which are inputs, not code.
  { ignores: ['out/', 'build/', 'node_modules/', 'test/host/node_modules/', 'test/host/.cache/', 'test-output/', '.attest/', 'test/fixtures/', 'test/host/fixtures/'] },
  {
    files: ['src/**/*.ts', 'bench/**/*.ts', 'test/**/*.ts'],
    languageOptions: { parser: everyImportCounts, sourceType: 'module' },
    plugins: { 'import-x': importX, '@typescript-eslint': tseslint.plugin },
    settings: {
      'import-x/extensions': ['.ts', '.d.ts', '.js'],
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.d.ts', '.js', '.json', '.node'] })],
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'import-x/no-cycle': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: vscodeInCore }] }],
      // Core loads some modules lazily with require() and import(): those must not reach the editor either.
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.name='require'][arguments.0.value='vscode']", message: vscodeInCore },
        { selector: "ImportExpression[source.value='vscode']", message: vscodeInCore },
        { selector: "TSImportType[argument.literal.value='vscode']", message: vscodeInCore },
      ],
    },
  },
);
