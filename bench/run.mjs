// npm run bench: pagelog's storage paths against the raw node:fs limit, in the same run.
// Figures are printed, never asserted: tests do not depend on timing.
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FsStorage, SimStorage } from "../dist/index.js";

const MiB = 1 << 20;

/** Best of three runs, in seconds: the first run of anything pays for warm-up (JIT, allocation). */
async function time(fn) {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const start = process.hrtime.bigint();
    await fn();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e9);
  }
  return best;
}

function row(name, raw, ours, unit) {
  const ratio = ours / raw;
  console.log(`${name.padEnd(44)} raw ${raw.toFixed(1).padStart(9)} ${unit}   pagelog ${ours.toFixed(1).padStart(9)} ${unit}   ratio ${ratio.toFixed(2)}`);
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), "pagelog-bench-"));
  try {
    const chunk = new Uint8Array(4096).fill(7);
    const total = 64 * MiB;

    // 1. Sequential 4 KiB writes into the page cache (no fsync): the append path's ceiling.
    const rawSeq = await time(async () => {
      const h = await open(join(dir, "raw-seq"), "w+");
      await h.truncate(0);
      for (let p = 0; p < total; p += chunk.length) await h.write(chunk, 0, chunk.length, p);
      await h.close();
    });
    const storage = await FsStorage.open(join(dir, "store"));
    const oursSeq = await time(async () => {
      const f = await storage.open("seq", { create: true });
      await f.truncate(0);
      for (let p = 0; p < total; p += chunk.length) await f.write(p, chunk);
      await f.close();
    });
    row("sequential 4 KiB writes, 64 MiB (MB/s)", total / MiB / rawSeq, total / MiB / oursSeq, "MB/s");

    // 2. 4 KiB write + fdatasync: the cost of "flush every batch".
    const n = 300;
    const rawSync = await time(async () => {
      const h = await open(join(dir, "raw-sync"), "w+");
      await h.truncate(0);
      for (let i = 0; i < n; i++) {
        await h.write(chunk, 0, chunk.length, i * chunk.length);
        await h.datasync();
      }
      await h.close();
    });
    const oursSync = await time(async () => {
      const f = await storage.open("sync", { create: true });
      await f.truncate(0);
      for (let i = 0; i < n; i++) {
        await f.write(i * chunk.length, chunk);
        await f.sync();
      }
      await f.close();
    });
    row(`4 KiB write + fdatasync, ${n}x (ops/s)`, n / rawSync, n / oursSync, "op/s");

    // 3. Sequential reads of what was written.
    const rawRead = await time(async () => {
      const h = await open(join(dir, "raw-seq"), "r");
      const buf = new Uint8Array(64 * 1024);
      for (let p = 0; p < total; p += buf.length) await h.read(buf, 0, buf.length, p);
      await h.close();
    });
    const oursRead = await time(async () => {
      const f = await storage.open("seq");
      for (let p = 0; p < total; p += 64 * 1024) await f.read(p, 64 * 1024);
      await f.close();
    });
    row("sequential 64 KiB reads, 64 MiB (MB/s)", total / MiB / rawRead, total / MiB / oursRead, "MB/s");
    await storage.close();

    // 4. The simulator, for scale (no raw equivalent: it is memory).
    const simTime = await time(async () => {
      const sim = new SimStorage({ seed: 1 });
      const f = await sim.open("seq", { create: true });
      for (let p = 0; p < total; p += chunk.length) await f.write(p, chunk);
      await f.sync();
    });
    console.log(`${"SimStorage 4 KiB writes + one sync, 64 MiB".padEnd(44)} ${(total / MiB / simTime).toFixed(1)} MB/s`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
