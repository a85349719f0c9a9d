/**
 * Sequential reads go on from where the last one stopped, on a chunk read ahead. The chunk is
 * never served once the log changed below its end: a truncation (and the re-append of other
 * records at the same offsets and positions) must be what the next read sees. (Today the
 * truncation's own read of the batch it cuts consumes the read-ahead; `truncateSegment` also
 * forgets it, so a truncation that did not read first would be safe too.)
 */
import { describe, expect, it } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";

const text = (b: Uint8Array | null) => new TextDecoder().decode(b!);

describe("read-ahead", () => {
  it("a truncation and a re-append at the same offsets are what the next read sees", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 3 }));
    const log = await dir.log("t-0");
    for (let b = 0; b < 40; b++)
      await log.append(Array.from({ length: 10 }, (_, i) => ({ value: `old-${b * 10 + i}`.padEnd(300, ".") })));
    // A sequential read of 64 KiB leaves the next chunk being read from where it stopped.
    const first = await log.read(0, { maxBytes: 64 * 1024 });
    const next = first.at(-1)!.offset + 1;
    await log.truncateTo(next);
    await log.append(Array.from({ length: 10 }, (_, i) => ({ value: `new-${next + i}`.padEnd(300, ".") })));
    const after = await log.read(next, { maxBytes: 64 * 1024 });
    expect(after.map((r) => text(r.value).replace(/\.+$/, ""))).toEqual(
      Array.from({ length: 10 }, (_, i) => `new-${next + i}`),
    );
    await dir.close();
  });

  it("records() over many chunks reads every record once, in order, the same as lookups one by one", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 4 }), { log: { segmentBytes: 300_000 } });
    const log = await dir.log("t-0");
    for (let b = 0; b < 60; b++)
      await log.append(Array.from({ length: 20 }, (_, i) => ({ value: `v${b * 20 + i}`.padEnd(500, "-") })));
    expect(log.segmentCount).toBeGreaterThan(1);
    let expected = 0;
    for await (const r of log.records()) {
      expect(r.offset).toBe(expected);
      expect(text(r.value).startsWith(`v${expected}-`)).toBe(true);
      expected++;
    }
    expect(expected).toBe(1200);
    await dir.close();
  });
});
