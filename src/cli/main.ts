/** The `pagelog` executable. */
import { main } from "./commands.js";
import { processIo } from "./io.js";

process.exitCode = await main(process.argv.slice(2), processIo());
