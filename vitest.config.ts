import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // LogDir.open(path) works in Node through the Node entry: every test file loads it first.
    setupFiles: ["test/setup/node-entry.ts"],
    // Crash properties run thousands of schedules; the default 5 s is for unit tests only.
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
