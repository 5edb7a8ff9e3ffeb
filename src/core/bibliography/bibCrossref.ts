/** `crossref` inheritance between .bib entries, by biblatex's rules. */
import type * as CrossrefModule from '@citation-js/plugin-bibtex/lib/mapping/crossref.js';
import { citationJs } from './loadCitationJs';
import type { RawEntry, SpanProblem } from './bibStructure';
import type { Properties } from './bibValues';

/**
 * Applies crossref inheritance, each entry once, parents before children. citation-js
 * recurses without a guard (two entries naming each other overflow the stack) and
 * re-resolves shared parents for every child, so the order and cycle check are ours.
 * Each entry is resolved once and its parent already is, so citation-js only ever merges
 * one level: a chain of any length costs what as many separate entries do, and needs no cap.
 */
export function resolveCrossrefs(raws: readonly RawEntry[], properties: readonly Properties[], problems: SpanProblem[]): readonly Properties[] {
  if (!properties.some((p) => p.crossref !== undefined)) return properties;
  const byKey = new Map<string, number>();
  raws.forEach((raw, i) => {
    if (!byKey.has(raw.key)) byKey.set(raw.key, i);
  });
  const parents = properties.map((p) => (typeof p.crossref === 'string' ? (byKey.get(p.crossref) ?? -1) : -1));
  const resolved = new Array<Properties | undefined>(raws.length).fill(undefined);
  const registry: Record<string, CrossrefModule.CrossrefParent<Properties>> = {};
  // Which walk last passed each entry: meeting it again in the same walk is a cycle.
  const walkOf = new Int32Array(raws.length);
  const chain: number[] = [];
  for (let i = 0; i < raws.length; i++) {
    if (resolved[i]) continue;
    chain.length = 0;
    for (let j = i; j >= 0 && !resolved[j] && walkOf[j] !== i + 1; j = parents[j]) {
      chain.push(j);
      walkOf[j] = i + 1;
    }
    for (let k = chain.length - 1; k >= 0; k--) {
      const child = chain[k];
      const parent = parents[child];
      const parentProperties = parent < 0 ? undefined : resolved[parent];
      if (parent >= 0 && !parentProperties) problems.push(crossrefCycle(raws[child]));
      const own = properties[child];
      if (own.crossref === undefined) {
        resolved[child] = own;
      } else if (parent < 0 || !parentProperties) {
        resolved[child] = withoutCrossref({ ...own });
      } else {
        // Under one name for every parent, since making each key a property name cost more than
        // the inheritance. `own` is this read's own object, and citation-js returns a new one.
        own.crossref = PARENT;
        registry[PARENT] = { type: raws[parent].type, properties: parentProperties };
        resolved[child] = withoutCrossref(citationJs().crossref.crossref(raws[child].type, own, registry));
      }
    }
  }
  return resolved as Properties[];
}

/** The name citation-js finds the parent under; no key, so nothing on Object's prototype either. */
const PARENT = '\u0000parent';

/** A resolved entry must not send citation-js looking for its parent again. */
function withoutCrossref(properties: Properties): Properties {
  delete properties.crossref;
  return properties;
}

function crossrefCycle(raw: RawEntry): SpanProblem {
  return { message: `Entry '${raw.key}' is part of a crossref cycle; nothing is inherited`, span: raw.keySpan };
}
