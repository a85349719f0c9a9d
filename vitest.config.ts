import { defineConfig } from "vitest/config";
import { CostliestFirst } from "./test/setup/sequencer.js";
import { drawBaseSeed } from "./test/support/seed.js";

// One base seed for the whole run (test/support/seed.ts): PAGELOG_SEED, or a fresh one that every
// worker shares, so `PAGELOG_SEED=<n> npm test` replays every randomized test of a run.
const seed = process.env.PAGELOG_SEED ?? String(drawBaseSeed());

/**
 * Five tiers, each its own vitest project with its own time limits (docs/testing.md):
 * unit (fast, in memory, mirrors src/), property (thousands of random or exhaustive cases),
 * integration (real processes, real and huge files, the built and packed package), browser (the
 * web page in Chromium), kafka (a real Apache Kafka broker and Kafka's own tools). `vitest run` runs them all; `--project <name>` runs one.
 *
 * All five share one pool of two workers (one per core of the 2-core machines the suite is timed
 * on) and start in one queue, costliest file first (test/setup/sequencer.ts): no tier waits for
 * another to finish, and no core idles while a tier's last long file runs. Vitest runs projects of
 * different `maxWorkers` or `sequence.groupOrder` one group after the other, so every project has
 * the same `maxWorkers` and no `groupOrder`.
 */
export default defineConfig({
  test: {
    // LogDir.open(path) works in Node through the Node entry: every test file loads it first.
    // file-time.ts: the alarm for a file that outgrows its tier, from each project's fileLimits.
    setupFiles: ["test/setup/node-entry.ts", "test/setup/file-time.ts"],
    // PAGELOG_CHECKS=all: pagelog's expensive invariant checks run in every test (docs/testing.md).
    env: { PAGELOG_SEED: seed, PAGELOG_CHECKS: "all" },
    sequence: { sequencer: CostliestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          // The slowest unit test takes a few seconds on a loaded 2-core machine; 20 s is the margin.
          testTimeout: 20_000,
          hookTimeout: 20_000,
          // Unit files share their workers' module graph (not one fresh graph per file): that halves
          // the tier's CPU time. So a unit test leaves no global state behind (timers, locks, env).
          isolate: false,
          // Vitest's default is one worker less than the cores: one on this 2-core machine. The unit
          // files are independent, so two workers use both cores (the tier's wall time about halves).
          maxWorkers: 2,
          // The alarm (test/setup/file-time.ts): a unit file is a few seconds; over this it fails. The
          // costliest today (test/unit/cli/fuzz.test.ts) takes about 7 CPU-s.
          provide: { fileLimits: { tier: "unit", cpuSeconds: 15, wallSeconds: 30 } },
        },
      },
      {
        extends: true,
        // The 2,000-schedule crash property has taken over 120 s on a loaded 2-core machine.
        test: {
          name: "property",
          include: ["test/property/**/*.test.ts"],
          testTimeout: 300_000,
          hookTimeout: 60_000,
          // Every property file is pure CPU in memory, independent of the others: two workers use
          // both cores (vitest's default here is one), at about 300 MB each.
          maxWorkers: 2,
          provide: { fileLimits: { tier: "property", cpuSeconds: 300, wallSeconds: 600 } },
        },
      },
      {
        extends: true,
        // Builds, packs and installs the package, kills processes, writes sparse 10 GiB files.
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          // The run's one private build of the package, started in the background (test/support/private-build.ts).
          globalSetup: ["test/integration/setup/global-setup.ts"],
          testTimeout: 300_000,
          hookTimeout: 600_000,
          // Two workers, as every tier: an integration file may run beside any other file. The
          // files that time something (the event loop on a slow device, a follower's latency in a
          // second process) have bounds made for a 2-core machine loaded far more than by one other
          // worker; each file works in a temporary directory of its own, and the ones that share
          // something take a lock (the packed package) or read the run's one private build.
          maxWorkers: 2,
          provide: { fileLimits: { tier: "integration", cpuSeconds: 300, wallSeconds: 600 } },
        },
      },
      {
        extends: true,
        // Bundles the page and drives it in Chromium.
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          maxWorkers: 2,
          provide: { fileLimits: { tier: "browser", cpuSeconds: 120, wallSeconds: 240 } },
        },
      },
      {
        extends: true,
        // A real Apache Kafka (pinned in test/kafka/pom.xml, fetched by Maven into .cache/kafka/):
        // one broker for the whole tier, started by the global set-up, and Kafka's own tools over
        // pagelog's files. Skips without Java and Maven, except under CI=true (docs/testing.md).
        test: {
          name: "kafka",
          include: ["test/kafka/**/*.test.ts"],
          globalSetup: ["test/kafka/setup/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Two files may use the shared broker at once: each makes topics and groups of its own
          // (freshTopic), and the files that stop or kill a broker start one of their own.
          maxWorkers: 2,
          provide: { fileLimits: { tier: "kafka", cpuSeconds: 60, wallSeconds: 120 } },
        },
      },
    ],
  },
});
