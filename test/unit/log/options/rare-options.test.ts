/**
 * The resolvers of the options a plain log is never given (`cleanupPolicy`,
 * `minCleanableDirtyRatio`, `crc32c`, `clock`, `policies`) are a lazy part that `LogDir` loads
 * when options give one (src/log/options/log-option-resolvers.ts). Whether loaded by `dir.log()`,
 * by `LogDir.open`'s `log` option or statically (`resolveLogOptions`, which the testing adapter
 * calls), each option resolves to the same value, and a bad one fails with the same error.
 */
import { describe, expect, it, vi } from "vitest";
import { crc32c } from "../../../../src/format/crc32c.js";
import type { LogOptions } from "../../../../src/log/options/log-options.js";
import { resolveLogOptions } from "../../../../src/log/options/resolve-log-options.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { NAME } from "../helpers.js";

const BAD: LogOptions[] = [
  { clock: 5 as never },
  { cleanupPolicy: "shred" as never },
  { minCleanableDirtyRatio: 2 },
  { policies: 5 as never },
  { crc32c: () => 0 },
  { segmentBytes: 1, clock: 5 as never }, // the first bad option in resolution order is named
  { clock: { now: () => 1 }, maxCompactionLagMs: 1, minCompactionLagMs: 2 },
];

const error = async (call: () => unknown): Promise<string> => {
  try {
    await call();
  } catch (err) {
    return `${(err as Error).name}: ${(err as Error).message}`;
  }
  return "no error";
};

describe("the rare options' resolvers, loaded on first use", () => {
  it("dir.log() loads them for options that give one: same errors as resolveLogOptions", async () => {
    vi.resetModules(); // a fresh registry: nothing loaded yet
    const { LogDir } = await import("../../../../src/log/log-dir.js");
    const dir = await LogDir.open(new SimStorage({ seed: 41 }));
    for (const options of BAD) {
      const expected = await error(() => resolveLogOptions(options, "log options"));
      expect(expected).toMatch(/^TypeError: option /);
      expect(await error(() => dir.log(NAME, options))).toBe(expected);
    }
    await dir.close();
  });

  it("LogDir.open's log option loads them too; every log resolves as resolveLogOptions does", async () => {
    vi.resetModules();
    const { LogDir } = await import("../../../../src/log/log-dir.js");
    const clock = { now: () => 5_000 };
    for (const options of BAD) {
      const expected = await error(() => resolveLogOptions(options, "option log"));
      expect(await error(() => LogDir.open(new SimStorage({ seed: 42 }), { log: options }))).toBe(expected);
    }
    const defaults: LogOptions = { clock, cleanupPolicy: "compact,delete", minCleanableDirtyRatio: 0.25 };
    const dir = await LogDir.open(new SimStorage({ seed: 43 }), { log: defaults });
    const given: LogOptions = { crc32c, segmentBytes: 4096 };
    const log = await dir.log(NAME, given);
    const { clock: resolvedClock, ...rest } = log.options;
    const { clock: expectedClock, ...expected } = resolveLogOptions({ ...defaults, ...given });
    expect(rest).toEqual(expected);
    expect(resolvedClock.now()).toBe(expectedClock.now()); // each a checked wrapper of `clock`
    expect(log.options.cleanupPolicy).toBe("compact,delete");
    await dir.close();
  });

  it("a plain log's options resolve to the defaults without them", async () => {
    vi.resetModules();
    const { LogDir } = await import("../../../../src/log/log-dir.js");
    const dir = await LogDir.open(new SimStorage({ seed: 44 }));
    const { systemClock } = await import("../../../../src/log/options/log-clock.js"); // this registry's
    const { clock, ...rest } = (await dir.log(NAME, { segmentBytes: 4096 })).options;
    const { clock: _, ...expected } = resolveLogOptions({ segmentBytes: 4096 });
    expect(rest).toEqual(expected);
    expect(clock).toBe(systemClock); // the system clock itself, as the log's stopwatch expects
    await dir.close();
  });

  it("options whose getter gives a rare option only on its second read: a TypeError naming it, not PAGELOG_BUG", async () => {
    vi.resetModules(); // nothing loaded: the first read decides that nothing needs loading
    const { LogDir } = await import("../../../../src/log/log-dir.js");
    const dir = await LogDir.open(new SimStorage({ seed: 45 }));
    let reads = 0;
    const shifty = {
      get clock() {
        return reads++ === 0 ? undefined : { now: () => 1 };
      },
    } as LogOptions;
    expect(await error(() => dir.log(NAME, shifty))).toBe(
      "TypeError: option clock changed while the options were read (give a plain object)",
    );
    const log = await dir.log(NAME, { clock: { now: () => 2 } }); // the directory goes on
    expect(log.options.clock.now()).toBe(2);
    await dir.close();
  });
});
