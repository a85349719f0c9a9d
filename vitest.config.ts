import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Crash properties run thousands of schedules; the default 5 s is for unit tests only.
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
