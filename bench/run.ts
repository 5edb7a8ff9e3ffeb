import * as path from 'node:path';
import { benchBibliography } from './bibliography.bench';
import { benchCheck, benchIgnoreList } from './check.bench';
import { benchCheckCommand } from './checkCommand.bench';
import { benchCompletion } from './completion.bench';
import { benchDblpDump } from './dblpDump.bench';
import { benchDraftParse } from './draftParse.bench';
import { benchFullText } from './fulltext.bench';
import { benchHallmark } from './hallmark.bench';
import { benchHostIfInstalled } from './host.bench';
import { benchEndlessFile, benchHostile, benchHostileFullTexts, benchPdfBombs } from './hostile.bench';
import { benchLibraryScale } from './libraryScale.bench';
import { benchLiveSearch } from './liveSearch.bench';
import { benchManuscriptParse } from './manuscriptParse.bench';
import { benchLibraryStall, benchParsingOffThread } from './responsiveness.bench';
import { benchEmbeddingBudget } from './embeddingBudget.bench';
import { benchEvidenceSentence } from './evidenceSentence.bench';
import { benchLexicalVsFlexsearch } from './flexsearch.bench';
import { benchReferenceText } from './referenceText.bench';
import { benchReferenceVerdicts } from './referenceVerdicts.bench';
import { benchRetrieval } from './retrieval.bench';
import { benchSuggest } from './suggest.bench';
import { benchShippedModel } from './nli.bench';
import { benchSolr } from './solr.bench';
import { benchSolrScale } from './solrScale.bench';
import { benchSupport } from './support.bench';
import { captureOutput, recordRun } from './record';

const MEASUREMENTS = path.resolve(__dirname, '../../docs/measurements.md');

/** `npm run bench`: every capability's benchmark, one after the other, printing its figures, then keeping them in docs/measurements.md. */
async function main(): Promise<void> {
  const started = Date.now();
  const printed = captureOutput();
  await runAll();
  await recordRun(MEASUREMENTS, started, printed());
  console.log(`\nThese figures replace the last run's in ${path.relative(process.cwd(), MEASUREMENTS)}.`);
}

async function runAll(): Promise<void> {
  await benchCheck();
  await benchIgnoreList();
  await benchCheckCommand();
  console.log('');
  benchManuscriptParse();
  benchHostile();
  benchHostileFullTexts();
  benchBibliography();
  await benchEndlessFile();
  await benchPdfBombs();
  console.log('\nresponsiveness: the longest time the thread that asked is held');
  await benchParsingOffThread();
  await benchLibraryStall();
  await benchCompletion();
  console.log('\nreferences written as text: fields read from BibTeX styles and typed references');
  benchReferenceText();
  console.log('\nreferences: HALLMARK against a local Crossref + OpenAlex');
  await benchHallmark();
  console.log('\nreferences written as text: HALLMARK printed in each style, checked like its .bib');
  await benchReferenceVerdicts();
  console.log('');
  await benchDblpDump();
  console.log('');
  await benchRetrieval();
  console.log('');
  await benchLexicalVsFlexsearch();
  console.log('');
  await benchEmbeddingBudget();
  console.log('\nevidence sentences: the sentence shown under a result, against SciFact dev rationales');
  await benchEvidenceSentence();
  console.log('');
  await benchLibraryScale();
  await benchLiveSearch();
  console.log('\nthe Solr backend: BEIR SciFact through a SolrCloud, against the local library');
  await benchSolr();
  console.log('\nthe Solr backend at scale: a generated collection of 100,000 to 1,000,000 papers');
  await benchSolrScale();
  console.log('\nsupport: relevance and NLI on SciFact and Citation-Integrity dev');
  await benchSupport();
  console.log('\nthe built-in NLI model: SciFact, Citation-Integrity and Check-COVID dev, latency, memory, VSIX');
  await benchShippedModel();
  console.log('\nfull texts: passage picking on Citation-Integrity, PDF reading');
  await benchFullText();
  console.log('\nsuggestions: grounded drafting with a scripted model');
  await benchSuggest();
  console.log('');
  await benchDraftParse();
  // Last: it starts VS Code a few times, and the figures above need no browser.
  console.log('');
  await benchHostIfInstalled();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
