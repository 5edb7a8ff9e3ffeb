import { benchCheck } from './check.bench';

/** `npm run bench`: every capability's benchmark, one after the other, printing its figures. */
async function main(): Promise<void> {
  await benchCheck();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
