import { EXIT_OK, EXIT_USAGE, processConsole, type Console } from './console';
import { attestVersion } from './version';

const COMMANDS = `Usage: attest <command> [options]; attest help <command> says more.
  check     check a manuscript's citations and references (a file, a .bib, or every manuscript in a folder)
  verify    judge whether abstracts support claims
  index     add papers to a paper library
  search    search a paper library
  solr      make Attest's collection on a SolrCloud, an institution's paper library
  suggest   draft cited text for a claim with a language model, from retrieved papers only
  --version print Attest's version`;

/**
 * Each command's module is loaded when it runs: `attest search` never loads what `attest check`
 * needs, and nothing loads ONNX Runtime before a model runs.
 */
export async function main(argv: readonly string[], io: Console = processConsole): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') return help(rest[0], io);
  if (command === '--version' || command === '-V' || command === 'version') {
    io.out(`${attestVersion()}\n`);
    return EXIT_OK;
  }
  if (command === 'verify') return (await import('./verify')).verify(rest, io);
  if (command === 'index') return (await import('./index')).indexCommand(rest, io);
  if (command === 'search') return (await import('./search')).searchCommand(rest, io);
  if (command === 'suggest') return (await import('./suggest')).suggestCommand(rest, io);
  if (command === 'solr') return (await import('./solr')).solrCommand(rest, io);
  if (command !== 'check') {
    io.err(`attest: ${command === undefined ? 'no command given' : `unknown command '${command}'`}\n${COMMANDS}\n`);
    return EXIT_USAGE;
  }
  return (await import('./check')).checkCommand(rest, io);
}

/** `attest help`: every command's usage; `attest help check`: check's alone. */
async function help(command: string | undefined, io: Console): Promise<number> {
  const usages: Readonly<Record<string, () => Promise<string>>> = {
    check: async () => (await import('./check')).CHECK_USAGE,
    verify: async () => (await import('./verify')).VERIFY_USAGE,
    index: async () => (await import('./index')).INDEX_USAGE,
    search: async () => (await import('./search')).SEARCH_USAGE,
    suggest: async () => (await import('./suggest')).SUGGEST_USAGE,
  };
  if (command === undefined) {
    const all = await Promise.all(Object.values(usages).map((usage) => usage()));
    io.out(`${[COMMANDS, ...all].join('\n\n')}\n`);
    return EXIT_OK;
  }
  if (!Object.hasOwn(usages, command)) {
    io.err(`attest help: unknown command '${command}'\n${COMMANDS}\n`);
    return EXIT_USAGE;
  }
  io.out(`${await usages[command]()}\n`);
  return EXIT_OK;
}
