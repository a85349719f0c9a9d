/**
 * A compacted log among the other options (issue 22, Deliver 5): reopened without the compact
 * policy it reads every record it holds (guarantee 11); retention with "compact,delete" deletes
 * whole cleaned segments; records appended without a key before compaction was turned on are
 * kept by the cleaner; a crafted `.swap` that is not whole batches is refused with nothing changed.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../../src/errors.js";
import type { Log } from "../../../../src/log/log.js";
import { keepEverything } from "../../../../src/storage/sim-storage.js";
import { NAME, expectCode, freshLog, openSim, readAll, readFile, segPath, writeFile } from "../helpers.js";

async function fill(log: Log, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const o = log.endOffset;
    await log.append([{ key: o % 6 === 1 ? `u${o}` : `k${o % 2}`, value: `v${o}` }]);
  }
  await log.flush();
}

describe("a compacted log among the other options", () => {
  it("reopened with the default policy (clean and after a crash) it reads every record it holds", async () => {
    const { sim, dir, log } = await freshLog({ cleanupPolicy: "compact", segmentBytes: 300 });
    await fill(log, 40);
    await log.compact();
    const left = await readAll(log);
    await dir.close();
    const plain = await (await openSim(sim)).log(NAME);
    expect(await readAll(plain)).toEqual(left);
    expect(await plain.offsetForTimestamp(0)).toBe(left[0]!.offset);
    const crashed = await (await openSim(sim.crash(keepEverything))).log(NAME, { segmentBytes: 1000 });
    expect(await readAll(crashed)).toEqual(left);
  });

  it('retention with "compact,delete" deletes whole cleaned segments, oldest first', async () => {
    const { dir, log } = await freshLog({ cleanupPolicy: "compact,delete", segmentBytes: 300, retentionBytes: 600 });
    await fill(log, 60);
    await log.compact();
    const left = await readAll(log);
    await log.applyRetention();
    expect(log.startOffset).toBe(log.segmentBaseOffsets[0]);
    expect(await readAll(log)).toEqual(left.filter((r) => r.offset >= log.startOffset));
    await dir.close();
  });

  it("records without a key, appended before compaction was turned on, are kept by the cleaner", async () => {
    const { sim, dir, log } = await freshLog({ segmentBytes: 300 });
    for (let i = 0; i < 10; i++) await log.append([{ value: `keyless${i}` }]);
    await fill(log, 30);
    await dir.close();
    const compacted = await (await openSim(sim)).log(NAME, { cleanupPolicy: "compact", segmentBytes: 300 });
    await compacted.compact();
    const keyless = (await readAll(compacted)).filter((r) => r.key === null).map((r) => r.value);
    expect(keyless).toEqual(Array.from({ length: 10 }, (_, i) => `keyless${i}`));
  });

  it("a crafted .swap (two segments' batches, the last one torn) is refused, nothing changed", async () => {
    const { sim, dir, log } = await freshLog({ cleanupPolicy: "compact", segmentBytes: 300 });
    await fill(log, 30);
    await dir.close();
    const [first, second] = log.segmentBaseOffsets as [number, number];
    // Both segments' bytes under the first one's name, the last batch torn: not whole batches.
    const bytes = new Uint8Array([
      ...(await readFile(sim, segPath(first, ".log"))),
      ...(await readFile(sim, segPath(second, ".log"))),
    ]);
    const swap = `${segPath(first, ".log")}.swap`;
    await writeFile(sim, swap, 0, bytes.slice(0, bytes.length - 5), { create: true, sync: true });
    await sim.syncDir(NAME);
    const listed = await sim.list(NAME);
    const again = await openSim(sim);
    await expectCode(() => again.log(NAME), ErrorCode.CORRUPT);
    expect(await sim.list(NAME)).toEqual(listed);
  });
});
