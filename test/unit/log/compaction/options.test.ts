/**
 * Compaction's options (issue 22, Deliver 1): Kafka's names and defaults, checked forms of
 * `cleanupPolicy`, a compacted log refusing a record without a key before anything is written,
 * retention only with "delete" in the policy, and a log reopened with the other policy losing
 * nothing.
 */
import { describe, expect, it } from "vitest";
import { resolveLogOptions } from "../../../../src/log/options/resolve-log-options.js";
import { NAME, expectTypeError, freshLog, openSim, readAll } from "../helpers.js";

describe("compaction options", () => {
  it("defaults are Kafka's: delete, 0.5, one day, 0, off", () => {
    const o = resolveLogOptions({});
    expect(o.cleanupPolicy).toBe("delete");
    expect(o.minCleanableDirtyRatio).toBe(0.5);
    expect(o.deleteRetentionMs).toBe(86_400_000);
    expect(o.minCompactionLagMs).toBe(0);
    expect(o.maxCompactionLagMs).toBe(-1);
  });

  it("cleanupPolicy takes Kafka's forms and normalizes them", () => {
    expect(resolveLogOptions({ cleanupPolicy: "compact" }).cleanupPolicy).toBe("compact");
    expect(resolveLogOptions({ cleanupPolicy: "delete" }).cleanupPolicy).toBe("delete");
    expect(resolveLogOptions({ cleanupPolicy: "compact,delete" }).cleanupPolicy).toBe("compact,delete");
    expect(resolveLogOptions({ cleanupPolicy: "delete,compact" }).cleanupPolicy).toBe("compact,delete");
    expect(resolveLogOptions({ cleanupPolicy: ["delete", "compact"] }).cleanupPolicy).toBe("compact,delete");
    expect(resolveLogOptions({ cleanupPolicy: ["compact"] }).cleanupPolicy).toBe("compact");
  });

  it("anything else is a TypeError naming the option", async () => {
    const bad: unknown[] = [
      "",
      "Compact",
      "compact,",
      "compact,compact",
      [],
      ["compact", "compact"],
      ["x"],
      1,
      null,
      {},
    ];
    for (const value of bad)
      await expectTypeError(() => resolveLogOptions({ cleanupPolicy: value as never }), "cleanupPolicy");
    for (const value of [-0.1, 1.5, Number.NaN, "0.5", null])
      await expectTypeError(
        () => resolveLogOptions({ minCleanableDirtyRatio: value as never }),
        "minCleanableDirtyRatio",
      );
    await expectTypeError(() => resolveLogOptions({ deleteRetentionMs: -1 }), "deleteRetentionMs");
    await expectTypeError(() => resolveLogOptions({ minCompactionLagMs: 1.5 }), "minCompactionLagMs");
    await expectTypeError(() => resolveLogOptions({ maxCompactionLagMs: 0 }), "maxCompactionLagMs");
    await expectTypeError(
      () => resolveLogOptions({ minCompactionLagMs: 100, maxCompactionLagMs: 50 }),
      "maxCompactionLagMs",
    );
    expect(resolveLogOptions({ minCompactionLagMs: 100, maxCompactionLagMs: -1 }).maxCompactionLagMs).toBe(-1);
  });

  it("a compacted log refuses a record without a key before anything is written; the log stays open", async () => {
    for (const policy of ["compact", "compact,delete"] as const) {
      const { sim, dir, log } = await freshLog({ cleanupPolicy: policy });
      await log.append([{ key: "a", value: "1" }]);
      const sizeBefore = log.size;
      await expectTypeError(() => log.append([{ key: "b", value: "2" }, { value: "no key" }]), "records[1].key");
      await expectTypeError(() => log.append([{ key: null, value: "null key" }]), "records[0].key");
      expect(log.size).toBe(sizeBefore);
      expect(log.endOffset).toBe(1);
      expect(log.status).toBe("open");
      // Tombstones have a key: they are taken.
      await log.append([{ key: "a", value: null }]);
      expect((await readAll(log)).map((r) => [r.key, r.value])).toEqual([
        ["a", "1"],
        ["a", null],
      ]);
      await dir.close();
      void sim;
    }
  });

  it("a log with the default policy still takes records without a key", async () => {
    const { dir, log } = await freshLog();
    await log.append([{ value: "no key" }]);
    expect(log.endOffset).toBe(1);
    await dir.close();
  });

  it("retention deletes only with delete in the policy", async () => {
    for (const [policy, kept] of [
      ["compact", 4],
      ["compact,delete", 1],
      ["delete", 1],
    ] as const) {
      const { dir, log } = await freshLog({ cleanupPolicy: policy, segmentBytes: 100, retentionBytes: 1 });
      for (let i = 0; i < 4; i++) await log.append([{ key: `k${i}`, value: "x".repeat(40) }]);
      await log.applyRetention();
      expect(log.segmentCount, policy).toBe(kept);
      await dir.close();
    }
  });

  it("reopening with the other policy loses nothing", async () => {
    // No background cleaning: the rolls' flushes would let it clean while `before` is read.
    const { sim, dir, log } = await freshLog({
      cleanupPolicy: "compact",
      segmentBytes: 120,
      backgroundCleaning: false,
    });
    for (let i = 0; i < 6; i++) await log.append([{ key: `k${i % 2}`, value: `v${i}` }]);
    const before = await readAll(log);
    await dir.close();
    const again = await openSim(sim);
    const plainLog = await again.log(NAME);
    expect(await readAll(plainLog)).toEqual(before);
    await plainLog.append([{ value: "keyless, allowed now" }]);
    await again.close();
    const third = await openSim(sim, { cleanupPolicy: "compact" });
    const compacted = await third.log(NAME);
    expect((await readAll(compacted)).slice(0, before.length)).toEqual(before);
    expect(compacted.endOffset).toBe(before.length + 1);
    await third.close();
  });
});
