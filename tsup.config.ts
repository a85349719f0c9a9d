import { defineConfig } from "tsup";

// `npm run build` empties dist/ first (not tsup's `clean`, which would race between the two
// configs). Two builds: the library (ESM + CJS + .d.ts for both) and the CLI (ESM only, with a shebang).
export default defineConfig([
  {
    entry: { index: "src/index.ts", testing: "src/testing.ts" },
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    target: "node20",
    // vitest and fast-check are peer tools of pagelog/testing, never bundled into it.
    external: ["vitest", "fast-check"],
  },
  {
    entry: { cli: "src/cli/main.ts" },
    format: ["esm"],
    sourcemap: true,
    target: "node20",
    banner: { js: "#!/usr/bin/env node" },
  },
]);
