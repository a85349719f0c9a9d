/**
 * The pagelog command. Commands land with their issues: `demo`, `dump`, `verify`, `fuzz`.
 */
import { parseArgs } from "node:util";

const COMMANDS = ["demo", "dump", "verify", "fuzz"] as const;

const HELP = `pagelog <command> [options]

Commands (not yet available in this version):
  demo      the chapter's page-cache demo on the simulator
  dump      print the batches and index entries of a segment or partition directory
  verify    check every CRC, index entry and offset of a log directory
  fuzz      run the crash-recovery fuzzer

Options:
  -h, --help     show this help
  -v, --version  show the version
`;

function main(argv: string[]): number {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: { help: { type: "boolean", short: "h" }, version: { type: "boolean", short: "v" } } });
  } catch (err) {
    process.stderr.write(`pagelog: ${(err as Error).message}\n`);
    return 2;
  }
  const [command] = parsed.positionals;
  if (parsed.values.version) {
    process.stdout.write("pagelog 0.1.0\n");
    return 0;
  }
  if (parsed.values.help || command === undefined) {
    process.stdout.write(HELP);
    return command === undefined && !parsed.values.help ? 2 : 0;
  }
  if ((COMMANDS as readonly string[]).includes(command)) {
    process.stdout.write(`pagelog ${command}: not yet — this command lands with its issue.\n`);
    return 0;
  }
  process.stderr.write(`pagelog: unknown command '${command}' (try pagelog --help)\n`);
  return 2;
}

process.exitCode = main(process.argv.slice(2));
