/**
 * Reads a structured full text (JATS XML, LaTeXML HTML) into passages with their section headings,
 * in one streaming pass of htmlparser2: linear in the document, and forgiving of the unclosed tags
 * and stray markup real documents carry.
 */
import type * as Htmlparser2 from 'htmlparser2';
import { chunkParagraph } from './chunk';
import type { Passage } from './types';

type Attributes = Readonly<Record<string, string>>;

/** What the elements of one format mean. */
export interface StructureRules {
  readonly xmlMode: boolean;
  /** The element holding the paper's body; nothing outside it is read. */
  isBody(name: string, attributes: Attributes): boolean;
  /** A (sub)section, whose heading names the passages inside it. */
  isSection(name: string, attributes: Attributes): boolean;
  /** A section's heading, read when it is the first heading inside the section. */
  isHeading(name: string, attributes: Attributes): boolean;
  isParagraph(name: string, attributes: Attributes): boolean;
  /** An element whose content is not prose: figures, tables, formulas, citations, the reference list. */
  isSkipped(name: string, attributes: Attributes): boolean;
  /** Text standing in for an element (a formula's TeX), or undefined to read its content. */
  replacement?(name: string, attributes: Attributes): string | undefined;
}

/** Far deeper than any paper nests its sections, paragraphs, emphasis and formulas. */
export const MAX_NESTING = 256;

interface Open {
  readonly name: string;
  readonly kind: 'body' | 'section' | 'heading' | 'paragraph' | 'skipped' | 'other';
}

/**
 * The passages of a document, whether it had a body at all, and whether it nests elements deeper
 * than MAX_NESTING (then its reading stopped there, and it has no passages).
 */
export function readStructured(text: string, rules: StructureRules): { passages: Passage[]; hasBody: boolean; tooDeep: boolean } {
  const passages: Passage[] = [];
  const stack: Open[] = [];
  /** Headings of the open sections, outermost first; undefined until a section's heading is read. */
  const headings: (string | undefined)[] = [];
  /** By open section, the outermost heading read so far at or above it: what passages inside are placed under. */
  const outermost: (string | undefined)[] = [];
  let bodyDepth = 0;
  let hasBody = false;
  let skipDepth = 0;
  let heading: string[] | undefined;
  let paragraph: string[] | undefined;
  let tooDeep = false;

  const flushParagraph = (): void => {
    if (paragraph === undefined) return;
    const section = outermost[outermost.length - 1] ?? '';
    for (const passage of chunkParagraph(paragraph.join(''), { section })) passages.push(passage);
    paragraph = undefined;
  };
  const emit = (chunk: string): void => {
    if (skipDepth > 0 || bodyDepth === 0) return;
    if (heading !== undefined) heading.push(chunk);
    else if (paragraph !== undefined) paragraph.push(chunk);
  };

  // Loaded on first use: with its entity tables it is a sixth of the extension's bundle.
  const { Parser } = require('htmlparser2') as typeof Htmlparser2;
  const parser = new Parser(
    {
      onopentag(rawName, attributes) {
        if (stack.length >= MAX_NESTING) {
          tooDeep = true;
          parser.pause();
          return;
        }
        const name = rules.xmlMode ? rawName : rawName.toLowerCase();
        let kind: Open['kind'] = 'other';
        if (skipDepth > 0) kind = 'other';
        else if (bodyDepth === 0) kind = rules.isBody(name, attributes) ? 'body' : 'other';
        else if (rules.isSkipped(name, attributes)) kind = 'skipped';
        else if (rules.isSection(name, attributes)) kind = 'section';
        else if (heading === undefined && headings.length > 0 && headings[headings.length - 1] === undefined && rules.isHeading(name, attributes)) kind = 'heading';
        else if (heading === undefined && rules.isParagraph(name, attributes)) kind = 'paragraph';
        stack.push({ name, kind });
        if (kind === 'body') {
          bodyDepth++;
          hasBody = true;
        } else if (kind === 'section') {
          flushParagraph();
          headings.push(undefined);
          outermost.push(outermost[outermost.length - 1]);
        } else if (kind === 'heading') {
          flushParagraph();
          heading = [];
        } else if (kind === 'paragraph') {
          flushParagraph();
          paragraph = [];
        } else if (kind === 'skipped') {
          const stand = rules.replacement?.(name, attributes);
          if (stand !== undefined) emit(` ${stand} `);
          skipDepth++;
        }
      },
      ontext(chunk) {
        emit(decodeEntitiesLeft(chunk));
      },
      onclosetag(rawName) {
        const name = rules.xmlMode ? rawName : rawName.toLowerCase();
        // htmlparser2 closes implied elements itself; a stray end tag with nothing open is ignored.
        const at = findLast(stack, name);
        if (at < 0) return;
        while (stack.length > at) close(stack.pop() as Open);
      },
    },
    { xmlMode: rules.xmlMode, decodeEntities: true, recognizeSelfClosing: true },
  );

  const close = (open: Open): void => {
    switch (open.kind) {
      case 'body':
        flushParagraph();
        bodyDepth--;
        break;
      case 'section':
        flushParagraph();
        headings.pop();
        outermost.pop();
        break;
      case 'heading':
        if (heading !== undefined && headings.length > 0) {
          const text = heading.join('').replace(/\s+/g, ' ').trim();
          headings[headings.length - 1] = text;
          outermost[outermost.length - 1] ??= text;
        }
        heading = undefined;
        break;
      case 'paragraph':
        flushParagraph();
        break;
      case 'skipped':
        skipDepth--;
        break;
      case 'other':
        break;
    }
  };

  parser.write(text);
  if (tooDeep) return { passages: [], hasBody, tooDeep };
  parser.end();
  while (stack.length > 0) close(stack.pop() as Open);
  flushParagraph();
  return { passages, hasBody, tooDeep };
}

function findLast(stack: readonly Open[], name: string): number {
  for (let i = stack.length - 1; i >= 0; i--) if (stack[i].name === name) return i;
  return -1;
}

/** htmlparser2 decodes entities; a non-breaking space is still a space to a reader. */
function decodeEntitiesLeft(chunk: string): string {
  return chunk.replace(/\u00a0/g, ' ');
}
