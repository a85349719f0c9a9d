/**
 * The pagelog command's dispatcher: one file per command in this folder, each
 * `run(args, io) → exit code`. Errors are one line and a non-zero exit, never a stack trace.
 * (`main.ts` is the executable, built to dist/cli.js; tests call `main` in-process.)
 */
import { type CliIo, type Command, UsageError } from "./terminal/io.js";
import { VERSION } from "./version.js";

/** Commands, loaded on demand so `pagelog --help` stays fast. */
const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  demo: {
    summary: "the chapter's page-cache demo on the simulator",
    load: async () => (await import("./demo/demo.js")).run,
  },
  dump: {
    summary: "print the batches and index entries of a segment or partition directory",
    load: async () => (await import("./dump/dump.js")).run,
  },
  verify: {
    summary: "check every batch, record, index entry and checkpoint of a log directory as reads do",
    load: async () => (await import("./verify/verify.js")).run,
  },
  recover: {
    summary: "open a log directory and every partition, recovering after a crash, with progress",
    load: async () => (await import("./recover/recover.js")).run,
  },
  tail: {
    summary: "print a partition's or a topic's records, one per line, and follow them (read-only)",
    load: async () => (await import("./tail/tail.js")).run,
  },
  mirror: {
    summary: "forward a partition or topic to a Kafka topic, exactly once, as it grows (needs kafkajs)",
    load: async () => (await import("./mirror/mirror.js")).run,
  },
  check: {
    summary: "run the course's unit cases against your storage policies (or pagelog's)",
    load: async () => (await import("./check/check.js")).run,
  },
  fuzz: { summary: "run the crash-recovery fuzzer", load: async () => (await import("./fuzz.js")).run },
  bench: {
    summary: "benchmarks: pagelog's hot paths beside their raw references, on your disk",
    load: async () => (await import("./bench.js")).run,
  },
};

function help(): string {
  const lines = ["pagelog <command> [options]", "", "Commands:"];
  for (const [name, c] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(8)}  ${c.summary}`);
  lines.push(
    "",
    "Options:",
    "  -h, --help     show help (pagelog <command> --help for a command's own)",
    "  -v, --version  show the version",
    "",
  );
  return lines.join("\n");
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === "-h" || first === "--help" || first === "help") {
    io.stdout.write(help());
    return first === undefined ? 2 : 0;
  }
  if (first === "-v" || first === "--version") {
    io.stdout.write(`pagelog ${VERSION}\n`);
    return 0;
  }
  const command = COMMANDS[first];
  if (command === undefined) {
    io.stderr.write(`pagelog: unknown command '${first}' (try pagelog --help)\n`);
    return 2;
  }
  try {
    return await (
      await command.load()
    )(rest, io);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    io.stderr.write(`pagelog ${first}: ${message.split("\n")[0]}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
}
