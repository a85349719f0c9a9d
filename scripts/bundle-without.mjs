#!/usr/bin/env node
/**
 * What moving modules out of the browser entry would save, before moving them:
 *
 *   node scripts/bundle-without.mjs src/log/write/flush-timer.ts src/a.ts,src/b.ts
 *
 * Builds `LogDir` + `SimStorage` as scripts/bundle-report.mjs and the browser-bundle test do
 * (esbuild for the browser, minified, every `import()` left out), once as it is and once per
 * argument with that argument's modules (comma-separated, repository paths) marked external, as
 * if each stood behind an `import()`: a module they alone import leaves with them, one the entry
 * imports elsewhere stays. Prints the gzipped (and minified) bytes each would save. An estimate of
 * the move: the door and the code that calls it through it add a little back.
 */
import { relative, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const repo = resolve(import.meta.dirname, "..");
const groups = process.argv.slice(2).map((arg) => arg.split(",").map((path) => resolve(repo, path)));
if (groups.length === 0 || process.argv.includes("--help") || process.argv.includes("-h")) {
  console.error("usage: node scripts/bundle-without.mjs <module>[,<module>…] …  (repository paths)");
  process.exit(groups.length === 0 ? 2 : 0);
}

/** The entry's size with `external` (absolute paths of .ts modules) left out: [minified, gzipped]. */
async function size(external) {
  const result = await build({
    stdin: { contents: 'export { LogDir, SimStorage } from "./src/index.ts";', resolveDir: repo, loader: "ts" },
    plugins: [
      {
        name: "leave-out",
        setup(b) {
          b.onResolve({ filter: /.*/ }, (a) => {
            if (a.kind === "dynamic-import")
              return { path: relative(repo, resolve(a.resolveDir, a.path)), external: true };
            if (!a.path.startsWith(".")) return undefined;
            const path = resolve(a.resolveDir, a.path).replace(/\.js$/, ".ts");
            return external.includes(path) ? { path: relative(repo, path), external: true } : undefined;
          });
        },
      },
    ],
    bundle: true,
    platform: "browser",
    format: "esm",
    minify: true,
    write: false,
    logLevel: "silent",
  });
  const code = result.outputFiles[0].text;
  return [code.length, gzipSync(code, { level: 9 }).length];
}

const [minified, gzipped] = await size([]);
console.log(`LogDir + SimStorage: ${minified} bytes minified, ${gzipped} gzipped`);
for (const group of groups) {
  const [m, g] = await size(group);
  const names = group.map((path) => relative(repo, path)).join(", ");
  console.log(`${String(gzipped - g).padStart(6)} gzipped (${minified - m} minified) without ${names}`);
}
