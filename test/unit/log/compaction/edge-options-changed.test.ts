/**
 * Options changed between opens (issue 22, Deliver 5; guarantee 10): a compacted log (with gaps)
 * opened without `cleanupPolicy: "compact"` keeps every record it holds, through appends (keyless
 * ones too), retention, a truncation, checkpoints and reopens, and compacts again later; a
 * delete-policy log opened with "compact" loses nothing until it is compacted, and then only what
 * the cleaner's rules drop. `pagelog verify` agrees with the reads at every step.
 */
import { describe, expect, it } from "vitest";
import { verifyDir } from "../../../../src/inspect/verify-dir.js";
import type { Log } from "../../../../src/log/log.js";
import { keepEverything, type SimStorage } from "../../../../src/storage/sim-storage.js";
import { NAME, freshLog, openSim, readAll, type PlainRecord } from "../helpers.js";

async function fill(log: Log, n: number, keyless = false): Promise<void> {
  for (let i = 0; i < n; i++) {
    const o = log.endOffset;
    const key = keyless ? undefined : o % 6 === 1 ? `u${o}` : `k${o % 2}`;
    await log.append([{ ...(key === undefined ? {} : { key }), value: `v${o}`, timestamp: 1000 + o }]);
  }
  await log.flush();
}

async function verified(sim: SimStorage): Promise<void> {
  expect((await verifyDir(sim, undefined)).problems).toEqual([]);
}

/** The latest record of every key, and every keyless record: what a full cleaning may keep. */
function latestOf(records: readonly PlainRecord[]): PlainRecord[] {
  const last = new Map<string, number>();
  for (const r of records) if (r.key !== null) last.set(r.key, r.offset);
  return records.filter((r) => r.key === null || last.get(r.key) === r.offset);
}

describe("a compacted log under changed options", () => {
  it("opened without compact: appends, keyless records, a truncation, a crash and reopens lose nothing", async () => {
    const { sim, dir, log } = await freshLog({ cleanupPolicy: "compact", segmentBytes: 300 });
    await fill(log, 40);
    await log.compact();
    const cleaned = await readAll(log);
    await dir.close();
    await verified(sim);

    const plainDir = await openSim(sim);
    const plain = await plainDir.log(NAME, { segmentBytes: 300 });
    expect(await readAll(plain)).toEqual(cleaned);
    await fill(plain, 6, true); // keyless: a delete-policy log takes them
    const withKeyless = await readAll(plain);
    expect(withKeyless.filter((r) => r.key === null)).toHaveLength(6);
    await plainDir.checkpoint();
    await plainDir.close();
    await verified(sim);
    // The clean point survived a writer that does not compact: the gaps still open.
    const again = await openSim(sim);
    const reread = await again.log(NAME);
    expect(await readAll(reread)).toEqual(withKeyless);
    // A truncation into the cleaned part, then more appends and a crash.
    const to = cleaned[Math.floor(cleaned.length / 2)]!.offset + 1;
    await reread.truncateTo(to);
    const cut = withKeyless.filter((r) => r.offset < to);
    expect(await readAll(reread)).toEqual(cut);
    await fill(reread, 3);
    const before = await readAll(reread);
    const crashed = sim.crash(keepEverything);
    const crashDir = await openSim(crashed);
    const afterCrash = await crashDir.log(NAME, { segmentBytes: 300 });
    expect(await readAll(afterCrash)).toEqual(before);
    await verified(crashed);

    // Compacted again later: the keyless records stay, keys keep their latest.
    await crashDir.close();
    const compactedDir = await openSim(crashed);
    const compacted = await compactedDir.log(NAME, { cleanupPolicy: "compact", segmentBytes: 300 });
    await fill(compacted, 12);
    const all = await readAll(compacted);
    const result = await compacted.compact();
    const left = await readAll(compacted);
    expect(left).toEqual(
      latestOf(all.filter((r) => r.offset < result.cleanPoint)).concat(
        all.filter((r) => r.offset >= result.cleanPoint),
      ),
    );
    await compactedDir.close();
    await verified(crashed);
  });

  it("retention with the delete policy on a compacted log deletes whole segments, oldest first", async () => {
    const { sim, dir, log } = await freshLog({ cleanupPolicy: "compact", segmentBytes: 300 });
    await fill(log, 50);
    await log.compact();
    const cleaned = await readAll(log);
    await dir.close();
    const d = await openSim(sim);
    const plain = await d.log(NAME, { segmentBytes: 300, retentionBytes: 700 });
    await plain.applyRetention();
    expect(plain.startOffset).toBe(plain.segmentBaseOffsets[0]);
    expect(plain.startOffset).toBeGreaterThan(0);
    expect(await readAll(plain)).toEqual(cleaned.filter((r) => r.offset >= plain.startOffset));
    await d.close();
    await verified(sim);
  });

  it("a delete-policy log opened with compact loses nothing until compacted, then only what cleaning drops", async () => {
    const { sim, dir, log } = await freshLog({ segmentBytes: 300 });
    await fill(log, 4, true); // keyless, from before compaction was turned on
    await fill(log, 36);
    const all = await readAll(log);
    await dir.close();
    const d = await openSim(sim);
    const compacted = await d.log(NAME, { cleanupPolicy: "compact", segmentBytes: 300 });
    expect(await readAll(compacted)).toEqual(all);
    expect(await compacted.offsetForTimestamp(1010)).toBe(10);
    await d.checkpoint();
    await verified(sim);
    const result = await compacted.compact();
    const left = await readAll(compacted);
    expect(left).toEqual(
      latestOf(all.filter((r) => r.offset < result.cleanPoint)).concat(
        all.filter((r) => r.offset >= result.cleanPoint),
      ),
    );
    await d.close();
    await verified(sim);
    // And back to delete: still every record the cleaning left.
    const back = await (await openSim(sim)).log(NAME);
    expect(await readAll(back)).toEqual(left);
  });
});
