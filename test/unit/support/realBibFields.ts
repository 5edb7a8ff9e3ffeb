import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { parse as parseBibtexFile } from '@citation-js/plugin-bibtex/lib/input/file.js';

const ROOT = path.resolve(__dirname, '../../../..');

function bibFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const file = path.join(folder, name);
    if (statSync(file).isDirectory()) return bibFiles(file);
    return name.endsWith('.bib') ? [file] : [];
  });
}

/** The string fields (all, or those `wanted`) of the repository's real bibliographies: fixtures and example. */
export function realFields(wanted: (field: string) => boolean = () => true): string[] {
  const files = [...bibFiles(path.join(ROOT, 'test/fixtures')), ...bibFiles(path.join(ROOT, 'examples'))];
  return files.flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    // citation-js's file grammar stops at a file's first syntax error; its entries are read one by one.
    return text.split(/^(?=@)/m).flatMap((chunk) => {
      try {
        return parseBibtexFile(chunk).flatMap((entry) => Object.entries(entry.properties).flatMap(([field, value]) => (typeof value === 'string' && wanted(field) ? [value] : [])));
      } catch {
        return [];
      }
    });
  });
}
