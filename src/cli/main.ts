/** The `pagelog` executable. */
import { main } from "./commands.js";
import { processIo } from "./io.js";

// `pagelog dump … | head`: the reader went away. That is the end of the output, not an error
// (no stack trace), as for any Unix filter.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw err;
  });
}

process.exitCode = await main(process.argv.slice(2), processIo());
