import * as path from 'node:path';
import type { ManuscriptLanguage } from './types';

const EXTENSIONS: Record<string, ManuscriptLanguage> = {
  '.tex': 'latex',
  '.ltx': 'latex',
  '.latex': 'latex',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.rmd': 'markdown',
  '.qmd': 'markdown',
};

/** The manuscript language of a file by its extension, or undefined for files Attest does not read. */
export function languageOf(file: string): ManuscriptLanguage | undefined {
  return EXTENSIONS[path.extname(file).toLowerCase()];
}
