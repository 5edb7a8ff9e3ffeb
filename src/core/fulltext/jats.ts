/**
 * JATS XML (https://jats.nlm.nih.gov/), as Europe PMC's `fullTextXML` serves open-access articles:
 * `<article><front>…</front><body><sec><title>Results</title><p>…</p><sec>…</sec></sec></body>
 * <back><ref-list>…</ref-list></back></article>`. Only the body is read; figures, tables, formulas
 * and citation pointers are left out of the prose.
 */
import { MAX_NESTING, readStructured, type StructureRules } from './structured';
import type { Passage } from './types';

const SKIPPED = new Set([
  'fig',
  'fig-group',
  'table-wrap',
  'table-wrap-group',
  'disp-formula',
  'inline-formula',
  'mml:math',
  'tex-math',
  'ref-list',
  'fn-group',
  'supplementary-material',
  'boxed-text',
  'graphic',
  'media',
  'label',
]);

const JATS: StructureRules = {
  xmlMode: true,
  isBody: (name) => name === 'body',
  isSection: (name) => name === 'sec',
  isHeading: (name) => name === 'title',
  isParagraph: (name) => name === 'p',
  isSkipped: (name, attributes) => SKIPPED.has(name) || (name === 'xref' && attributes['ref-type'] === 'bibr'),
};

/** The body's passages, or why there are none. */
export function passagesFromJats(xml: string): { passages: Passage[] } | { reason: string } {
  const { passages, hasBody, tooDeep } = readStructured(xml, JATS);
  if (tooDeep) return { reason: `the JATS full text nests its elements more than ${MAX_NESTING} deep; it was not read` };
  if (!hasBody) return { reason: 'the JATS full text has no body (only the front matter is open)' };
  if (passages.length === 0) return { reason: 'the JATS body has no paragraphs' };
  return { passages };
}
