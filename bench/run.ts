import { benchCheck } from './check.bench';
import { benchCompletion } from './completion.bench';
import { benchDraftParse } from './draftParse.bench';
import { benchHallmark } from './hallmark.bench';
import { benchRetrieval } from './retrieval.bench';
import { benchSuggest } from './suggest.bench';
import { benchSupport } from './support.bench';

/** `npm run bench`: every capability's benchmark, one after the other, printing its figures. */
async function main(): Promise<void> {
  await benchCheck();
  await benchCompletion();
  console.log('\nreferences: HALLMARK against a local Crossref + OpenAlex');
  await benchHallmark();
  console.log('');
  await benchRetrieval();
  console.log('\nsupport: relevance and NLI on SciFact and Citation-Integrity dev');
  await benchSupport();
  console.log('\nsuggestions: grounded drafting with a scripted model');
  await benchSuggest();
  console.log('');
  await benchDraftParse();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
