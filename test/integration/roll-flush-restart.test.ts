/**
 * An unclean restart after many rolls (issue 33, item 1): a child process (the built package,
 * FsStorage, flushing off as Kafka's default) appends over 100 rolls and exits without close().
 * The reopen walks only what lies above the checkpointed recovery point: the active segment and
 * the one whose roll flush was in flight (recovery starts at the segment holding the recovery
 * point, as Kafka's LogLoader does). Before
 * the roll flush, the recovery point stayed 0 and the reopen walked all 101 segments.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LogDir } from "../../src/node.js";
import { privateBuild } from "../support/private-build.js";

const repo = resolve(import.meta.dirname, "../..");
const child = join(repo, "test/integration/fixtures/roll-flush-child.mjs");
const ROLLS = 100;
const SEGMENT_BYTES = 64 * 1024;

let buildDir: string;
let dataDir: string;

beforeAll(() => {
  buildDir = privateBuild();
  dataDir = mkdtempSync(join(tmpdir(), "pagelog-roll-flush-"));
}, 60_000);

afterAll(() => {
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
});

describe("unclean restart after many rolls (child process, FsStorage)", () => {
  it(`after ${ROLLS} rolls and an exit without close(), the reopen walks at most the last two segments`, async () => {
    const run = spawnSync(process.execPath, [child, dataDir, String(ROLLS), String(SEGMENT_BYTES), "steady"], {
      env: { ...process.env, PAGELOG_MODULE: join(buildDir, "node.js") },
      encoding: "utf8",
      timeout: 60_000,
    });
    const line = run.stdout.trim();
    expect(line, run.stderr).toMatch(/^done /);
    const [endOffset, segmentCount] = line.split(" ").slice(1).map(Number) as [number, number];
    expect(segmentCount).toBeGreaterThan(ROLLS);

    const dir = await LogDir.open(dataDir);
    const log = await dir.log("rolls-0");
    expect(dir.recovery.clean).toBe(false);
    expect(log.endOffset).toBe(endOffset); // the page cache kept every append: nothing lost
    expect(log.segmentCount).toBe(segmentCount);
    console.log(
      `unclean reopen after ${segmentCount - 1} rolls: walked ${dir.recovery.segmentsScanned} segments, ${dir.recovery.bytesScanned} bytes`,
    );
    // The active segment and the one whose roll flush was in flight at the exit (recovery starts
    // at the segment holding the checkpointed recovery point, as Kafka's): never the ~100 below.
    expect(dir.recovery.segmentsScanned).toBeLessThanOrEqual(2);
    expect(dir.recovery.bytesScanned).toBeLessThanOrEqual(2 * SEGMENT_BYTES);
    await dir.close();
  }, 90_000);
});
