/** The `pagelog` executable. */
import { installNativeCrc32c } from "../format/crc32c-accelerator.js";
import { loadNativeCrc32c, warnCrc32cFallback } from "../storage/fs-native-crc32c.js";
import { main } from "./commands.js";
import { processIo } from "./terminal/io.js";

// The CLI is a bundle of its own (not the package's Node entry): it makes the same choice of
// CRC-32C, native where @node-rs/crc32 is installed and passes its self-test (src/node.ts).
installNativeCrc32c(() => loadNativeCrc32c(), warnCrc32cFallback);

// `pagelog dump … | head`: the reader went away. That is the end of the output, not an error
// (no stack trace), as for any Unix filter.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw err;
  });
}

const code = await main(process.argv.slice(2), processIo());
process.exitCode = code;
// The command is over: a reader's module (--policies, --adapter) may have left a timer or a
// socket open, which must not keep the process up. Exit once what was written has been flushed.
await Promise.all([process.stdout, process.stderr].map((s) => new Promise<void>((done) => s.write("", () => done()))));
process.exit(code);
