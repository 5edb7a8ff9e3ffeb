import { LatexTextReader } from './latexText';
import type * as ValueModule from '@citation-js/plugin-bibtex/lib/input/value.js';
import type * as ConstantsModule from '@citation-js/plugin-bibtex/lib/input/constants.js';
import type * as CrossrefModule from '@citation-js/plugin-bibtex/lib/mapping/crossref.js';
import type * as CitationJsModule from './citationJs';

// citation-js, loaded on first use: it pulls in all of @citation-js/core, which is slow to
// load and not needed until a bibliography is actually read.

interface CitationJs {
  readonly value: typeof ValueModule;
  readonly constants: typeof ConstantsModule;
  readonly crossref: typeof CrossrefModule;
  /** citation-js's reading of the common LaTeX of text fields, without its grammar's cost. */
  readonly latexText: LatexTextReader;
}

let loaded: CitationJs | undefined;

export function citationJs(): CitationJs {
  if (!loaded) {
    const library = require('./citationJs') as typeof CitationJsModule;
    const constants = library.bibtexConstants;
    addMissingLatexCommands(constants.commands);
    loaded = { value: library.bibtexValue, constants, crossref: library.bibtexCrossref, latexText: new LatexTextReader(constants) };
  }
  return loaded;
}

/** Letters that are common in author names but missing from citation-js's table. */
function addMissingLatexCommands(commands: Record<string, string>): void {
  const missing: Record<string, string> = { aa: '\u00e5', AA: '\u00c5' };
  for (const [name, text] of Object.entries(missing)) {
    if (!(name in commands)) commands[name] = text;
  }
}
