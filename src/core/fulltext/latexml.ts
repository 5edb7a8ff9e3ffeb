/**
 * arXiv's HTML rendering of a paper (https://arxiv.org/html/ID), made by LaTeXML:
 * `<article class="ltx_document">` holding `<section class="ltx_section">` with an
 * `<h2 class="ltx_title ltx_title_section"><span class="ltx_tag">1 </span>Introduction</h2>` and
 * paragraphs `<div class="ltx_para"><p class="ltx_p">…</p></div>`; subsections nest the same way;
 * formulas are MathML `<math alttext="TeX">`; the abstract is a `div.ltx_abstract`, the references a
 * `section.ltx_bibliography`.
 */
import { MAX_NESTING, readStructured, type StructureRules } from './structured';
import type { Passage } from './types';

type Attributes = Readonly<Record<string, string>>;

function hasClass(attributes: Attributes, name: string): boolean {
  return (attributes.class ?? '').split(/\s+/).includes(name);
}

const SKIPPED_CLASSES = [
  'ltx_bibliography',
  'ltx_abstract',
  'ltx_figure',
  'ltx_table',
  'ltx_tag',
  'ltx_note',
  'ltx_cite',
  'ltx_equation',
  'ltx_equationgroup',
  'ltx_authors',
  'ltx_title_document',
  'ltx_page_footer',
  'ltx_TOC',
];

const LATEXML: StructureRules = {
  xmlMode: false,
  isBody: (name, attributes) => name === 'article' && hasClass(attributes, 'ltx_document'),
  isSection: (name) => name === 'section',
  isHeading: (name, attributes) => /^h[1-6]$/.test(name) && hasClass(attributes, 'ltx_title'),
  isParagraph: (name) => name === 'p',
  isSkipped: (name, attributes) => name === 'math' || name === 'figure' || name === 'table' || name === 'nav' || SKIPPED_CLASSES.some((c) => hasClass(attributes, c)),
  replacement: (name, attributes) => (name === 'math' ? attributes.alttext : undefined),
};

/** The paper's passages, or why there are none. */
export function passagesFromLatexml(html: string): { passages: Passage[] } | { reason: string } {
  const { passages, hasBody, tooDeep } = readStructured(html, LATEXML);
  if (tooDeep) return { reason: `the arXiv HTML nests its elements more than ${MAX_NESTING} deep; it was not read` };
  if (!hasBody) return { reason: 'the arXiv HTML has no LaTeXML document in it' };
  if (passages.length === 0) return { reason: 'the arXiv HTML has no paragraphs' };
  if (passages.every((p) => p.section === '')) return { reason: 'the arXiv HTML has no sections' };
  return { passages };
}
