/**
 * Every part of citation-js Attest uses, in one module its callers require on first use. citation-js
 * pulls in @citation-js/core and its dependencies (a third of the extension's bundle), so the package
 * bundles this module apart (dist/lib/citation-js.js) and activating the extension does not compile it.
 * The parts share one @citation-js/core, on which the BibTeX plugin registers its output format.
 */
import type * as ValueModule from '@citation-js/plugin-bibtex/lib/input/value.js';
import type * as ConstantsModule from '@citation-js/plugin-bibtex/lib/input/constants.js';
import type * as CrossrefModule from '@citation-js/plugin-bibtex/lib/mapping/crossref.js';

export const bibtexValue = require('@citation-js/plugin-bibtex/lib/input/value.js') as typeof ValueModule;
export const bibtexConstants = require('@citation-js/plugin-bibtex/lib/input/constants.js') as typeof ConstantsModule;
export const bibtexCrossref = require('@citation-js/plugin-bibtex/lib/mapping/crossref.js') as typeof CrossrefModule;

/** Typed by its one user (generate.ts): only the `bibtex` output is used. */
export const core = require('@citation-js/core') as unknown;
require('@citation-js/plugin-bibtex');
export const bibtexOutput = require('@citation-js/plugin-bibtex/lib/output/bibtex.js') as unknown;

/** Typed by its one user (papers/import.ts). */
export const ris = require('@citation-js/plugin-ris/lib/ris.js') as unknown;
