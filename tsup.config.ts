import { defineConfig } from "tsup";

// `npm run build` empties dist/ first (not tsup's `clean`, which would race between the two
// configs). Two builds: the library (ESM + CJS + .d.ts for both) and the CLI (ESM only, with a
// shebang), whose second entry is the bench's child process (src/bench/bench-child.ts): the
// parent runs dist/bench-child.js with `process.execPath`, so no hidden flag is in the CLI's parser.
// The library's entries (docs/entry-points.md): `index` the browser-clean root, `node` the root
// in Node (adds FsStorage and LogDir.open(path)), `format`, `fs`, `testing`, `course` and `kafka`
// (the mirror; kafkajs, its optional peer dependency, stays external) the subpaths.
// The ESM entries share chunks, so one LogDir class serves them all in one process.
export default defineConfig([
  {
    entry: {
      index: "src/index.ts",
      node: "src/node.ts",
      format: "src/format.ts",
      fs: "src/fs.ts",
      testing: "src/testing.ts",
      course: "src/course.ts",
      kafka: "src/kafka.ts",
    },
    format: ["esm", "cjs"],
    // The .d.ts files are api-extractor's rollups, one per entry (scripts/api.mjs), not tsup's chunks.
    dts: false,
    sourcemap: true,
    target: "node20",
    // `import.meta.url` in the CJS build (storage/fs-native-crc32c.ts resolves the native CRC-32C
    // from pagelog's own file): tsup's shim makes it the file's URL there.
    shims: true,
    // pagelog/testing imports neither (a test proves it); kept external so a slip never bundles one.
    external: ["vitest", "fast-check"],
  },
  {
    entry: { cli: "src/cli/main.ts", "bench-child": "src/bench/bench-child.ts" },
    format: ["esm"],
    sourcemap: true,
    target: "node20",
    banner: { js: "#!/usr/bin/env node" },
  },
]);
