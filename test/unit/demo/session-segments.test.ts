/**
 * DemoSession's picture of any segment (the web page's segment picker): by default the active
 * one; `snapshot({ segment })` draws an older one, with its own batches, numbered 1-based.
 */
import { describe, expect, it } from "vitest";
import { DemoSession } from "../../../src/demo/session.js";

const CONFIG = { seed: 2, pageSize: 64, sectorSize: 16, segmentBytes: 1024, flushEvery: 0 };

describe("DemoSession segment views", () => {
  it("after a roll, snapshot draws the active segment by default and an older one when asked", async () => {
    const session = await DemoSession.start(CONFIG);
    await session.produce(20);
    const active = (await session.snapshot()).segment!;
    expect(active.segmentCount).toBeGreaterThan(1);
    expect(active.segmentNumber).toBe(active.segmentCount);

    const first = (await session.snapshot({ segment: 1 })).segment!;
    expect(first.segmentNumber).toBe(1);
    expect(first.segmentCount).toBe(active.segmentCount);
    expect(first.path).toBe("sensors-0/00000000000000000000.log");
    expect(first.path).not.toBe(active.path);
    expect(first.batches[0]).toEqual({ position: 0, baseOffset: 0, valid: true });
    expect(first.batches.every((b) => b.valid)).toBe(true);
    expect(first.ranges.at(-1)!.end).toBe(first.size);

    // Out of range: clamped to the segments there are.
    expect((await session.snapshot({ segment: 99 })).segment!.path).toBe(active.path);
    expect((await session.snapshot({ segment: 0 })).segment!.path).toBe(first.path);
    await session.close();
  });
});
