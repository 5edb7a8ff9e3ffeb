import { benchCheck } from './check.bench';
import { benchHallmark } from './hallmark.bench';
import { benchSupport } from './support.bench';

/** `npm run bench`: every capability's benchmark, one after the other, printing its figures. */
async function main(): Promise<void> {
  await benchCheck();
  console.log('\nreferences: HALLMARK against a local Crossref + OpenAlex');
  await benchHallmark();
  console.log('\nsupport: relevance and NLI on SciFact and Citation-Integrity dev');
  await benchSupport();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
