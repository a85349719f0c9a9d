// npm run bench: pagelog's storage paths against the raw node:fs limit, in the same run.
// Figures are printed, never asserted: tests do not depend on timing.
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeBatchSync, encodeBatch } from "../dist/format.js";
import { FsStorage, LogDir, SimStorage } from "../dist/node.js";

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
  console.log(
    `${name.padEnd(44)} raw ${raw.toFixed(1).padStart(9)} ${unit}   pagelog ${ours.toFixed(1).padStart(9)} ${unit}   ratio ${ratio.toFixed(2)}`,
  );
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
    console.log(
      `${"SimStorage 4 KiB writes + one sync, 64 MiB".padEnd(44)} ${(total / MiB / simTime).toFixed(1)} MB/s`,
    );
    await logBench(dir);
    formatBench();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The Log against the same bytes written with raw node:fs. */
async function logBench(dir) {
  const value = new Uint8Array(1024).fill(1);
  const batch = encodeBatch([{ value }], { baseOffset: 0, timestamp: 0 });
  const n = 20000;

  // 1. Appends of one 1 KiB record, flushing off (Kafka's default): the page-cache path.
  const rawAppend = await time(async () => {
    const h = await open(join(dir, "raw-append"), "w+");
    await h.truncate(0);
    for (let i = 0; i < n; i++) await h.write(batch, 0, batch.length, i * batch.length);
    await h.close();
  });
  let run = 0;
  const oursAppend = await time(async () => {
    const logs = await LogDir.open(join(dir, `logs-${run++}`));
    const log = await logs.log("bench-0");
    for (let i = 0; i < n; i++) await log.append([{ value }]);
    await logs.close();
  });
  row(
    `append 1 KiB records, flush off, ${n}x (MB/s)`,
    (n * batch.length) / MiB / rawAppend,
    (n * batch.length) / MiB / oursAppend,
    "MB/s",
  );

  // 2. Durable appends one at a time (flushMessages: 1) against write + fdatasync.
  const m = 300;
  const rawDurable = await time(async () => {
    const h = await open(join(dir, "raw-durable"), "w+");
    await h.truncate(0);
    for (let i = 0; i < m; i++) {
      await h.write(batch, 0, batch.length, i * batch.length);
      await h.datasync();
    }
    await h.close();
  });
  const oursDurable = await time(async () => {
    const logs = await LogDir.open(join(dir, `logs-${run++}`), { log: { flushMessages: 1 } });
    const log = await logs.log("bench-0");
    for (let i = 0; i < m; i++) await log.append([{ value }]);
    await logs.close();
  });
  row(`durable append (flushMessages 1), ${m}x (op/s)`, m / rawDurable, m / oursDurable, "op/s");

  // 3. The same, 64 appends in flight at once: group commit shares the write and the fsync.
  const oursGroup = await time(async () => {
    const logs = await LogDir.open(join(dir, `logs-${run++}`), { log: { flushMessages: 1 } });
    const log = await logs.log("bench-0");
    for (let i = 0; i < m; i += 64)
      await Promise.all(Array.from({ length: Math.min(64, m - i) }, () => log.append([{ value }])));
    await logs.close();
  });
  row(`durable append, 64 in flight, ${m}x (op/s)`, m / rawDurable, m / oursGroup, "op/s");

  // 4. Reading it all back as records, against raw reads of the same bytes.
  const logs = await LogDir.open(join(dir, `logs-${run++}`));
  const log = await logs.log("bench-0");
  for (let i = 0; i < n; i += 100) await log.append(Array.from({ length: 100 }, () => ({ value })));
  const rawRead = await time(async () => {
    const h = await open(join(dir, "raw-append"), "r");
    const buf = new Uint8Array(1 << 20);
    for (let p = 0; p < n * batch.length; p += buf.length) await h.read(buf, 0, buf.length, p);
    await h.close();
  });
  const oursRead = await time(async () => {
    let count = 0;
    for await (const r of log.records()) count += r.value.length > 0 ? 1 : 0;
    if (count !== n) throw new Error(`read ${count} records, expected ${n}`);
  });
  row(`read ${n} records of 1 KiB (MB/s)`, (n * batch.length) / MiB / rawRead, (n * 1024) / MiB / oursRead, "MB/s");
  await logs.close();
}

/** The codec alone (no I/O, so no raw equivalent): batches of 100 records of 1 KiB. */
function formatBench() {
  const records = Array.from({ length: 100 }, (_, i) => ({ key: `k${i}`, value: new Uint8Array(1024).fill(i) }));
  const rounds = 300;
  let bytes;
  const start = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) bytes = encodeBatch(records, { baseOffset: i * 100, timestamp: 1 });
  const mid = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) decodeBatchSync(bytes);
  const end = process.hrtime.bigint();
  const mb = (rounds * bytes.length) / MiB;
  console.log(
    `${"encode 100 x 1 KiB batches, CRC included".padEnd(44)} ${(mb / (Number(mid - start) / 1e9)).toFixed(1)} MB/s`,
  );
  console.log(
    `${"decode 100 x 1 KiB batches, CRC checked".padEnd(44)} ${(mb / (Number(end - mid) / 1e9)).toFixed(1)} MB/s`,
  );
}

await main();
