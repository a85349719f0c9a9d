// npm run bench: `pagelog bench` from this checkout's build, with the arguments given
// (`npm run bench -- --json`, `npm run bench -- --rows records --scale 0.1`). The suite itself is
// src/bench/ (the command is src/cli/bench.ts); docs/cli.md says what each row measures.
import { fileURLToPath } from "node:url";

const cli = new URL("../dist/cli.js", import.meta.url);
// As if run as `node dist/cli.js bench …`: the rows run in dist/bench-child.js, beside it.
process.argv = [process.argv[0], fileURLToPath(cli), "bench", ...process.argv.slice(2)];
await import(cli.href);
