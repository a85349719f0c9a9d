/**
 * The lazy-segment bench rows (src/bench/rows/rows-open.ts) at a tiny scale: each runs, builds its
 * directories, checks what it opened, and reports figures (a ratio against readdir where it has one).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { crc32c } from "../../../../src/format/index.js";
import type { BenchContext } from "../../../../src/bench/context.js";
import { idleSegmentBytes, open10kPartitions, open10kSegments } from "../../../../src/bench/rows/rows-open.js";

const dir = mkdtempSync(join(tmpdir(), "pagelog-bench-open-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ctx: BenchContext = {
  diskDir: dir,
  tmpfsDir: dir,
  repeats: 2,
  scale: 0.01,
  crc: crc32c,
  logOptions: {},
  markRss: () => undefined,
};

describe("bench rows of lazy segments", () => {
  it("open-10k-segments (and its first read), open-10k-partitions, idle-segment-bytes report figures", async () => {
    const rows = [...(await open10kSegments(ctx)), ...(await open10kPartitions(ctx)), ...(await idleSegmentBytes(ctx))];
    expect(rows.map((r) => r.row)).toEqual([
      "open-10k-segments",
      "open-10k-segments/first-read",
      "open-10k-partitions",
      "idle-segment-bytes",
    ]);
    for (const r of rows) {
      expect(r.pagelog, r.row).toHaveLength(2);
      for (const v of r.pagelog) expect(Number.isFinite(v), r.row).toBe(true);
    }
    expect(rows[0]!.reference).toHaveLength(2);
  }, 60_000);
});
