import { benchCheck } from './check.bench';
import { benchHallmark } from './hallmark.bench';

/** `npm run bench`: every capability's benchmark, one after the other, printing its figures. */
async function main(): Promise<void> {
  await benchCheck();
  console.log('\nreferences: HALLMARK against a local Crossref + OpenAlex');
  await benchHallmark();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
