// One cell of `npm run bench:peers` (bench/peers.mjs), in a fresh process of its own: one library
// (pagelog from this checkout's dist/, or a peer from the scratch install) running one workload.
// Its only argument is the job as JSON; it prints one JSON line, { value, unit, ... }, and exits.
// The workloads, for every library alike (see docs/performance.md, "Peers"):
//   build      append `mb` MB of 1 KiB records, 100 per call, and close cleanly (not timed)
//   append     `mb` MB of `recordBytes` records, 100 per call, each call awaited: payload MB/s
//   durable    64 x 1 KiB per call, each call acknowledged durable before the next: appends/s
//   background the same calls, acknowledged at once, then waited for until all is on disk
//   read       every record of the built log, in order, each value touched: payload MB/s
//   reopen     open the built log and read its first record: ms (the clock starts at the open)
import { mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const job = JSON.parse(process.argv[2] ?? "{}");
const MB = 1 << 20;
const PER_CALL = 100;
const DURABLE_PER_CALL = 64;

/** `count` distinct values of `bytes` bytes each (a seeded xorshift, so every library gets the same). */
function values(count, bytes) {
  let x = 0x9e3779b9;
  const pool = Buffer.allocUnsafe(count * bytes);
  for (let i = 0; i < pool.length; i += 4) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    pool.writeUInt32LE(x, Math.min(i, pool.length - 4));
  }
  return Array.from({ length: count }, (_, i) => pool.subarray(i * bytes, (i + 1) * bytes));
}

const now = () => performance.now();

/** The cell's library, behind one small interface: open, append(batch), durable append, read, close. */
async function pagelog(path, durable) {
  const { LogDir } = await import(pathToFileURL(join(job.root, "dist/node.js")).href);
  return {
    async open() {
      const dir = await LogDir.open(path, durable ? { log: { flushMessages: 1 } } : {});
      const log = await dir.log("bench-0");
      return {
        append: (batch) => log.append(batch.map((value) => ({ value }))),
        // flushMessages 1: the append resolves once its batch is written and fdatasync'ed.
        durableAppend: (batch) => log.append(batch.map((value) => ({ value }))),
        drain: async () => undefined,
        async read(onValue) {
          for await (const record of log.records({ from: 0 })) onValue(record.value);
        },
        first: async () => (await log.read(0, { maxRecords: 1 }))[0]?.value,
        close: () => dir.close(),
      };
    },
  };
}

function aaol(path) {
  const OffsetLog = createRequire(join(job.peers, "package.json"))("async-append-only-log");
  return {
    async open() {
      // writeTimeout 1 ms: its writer starts 1 ms after the last append, not 250 ms (the default).
      const log = OffsetLog(join(path, "log.bin"), { writeTimeout: 1 });
      const call = (fn, ...args) => new Promise((res, rej) => fn(...args, (err, v) => (err ? rej(err) : res(v))));
      const drain = () => new Promise((res) => log.onDrain(res));
      return {
        // Its append is synchronous, into the block in memory; the background writer writes (and
        // fsyncs) whole 64 KiB blocks after it.
        append: (batch) => call(log.append, batch),
        async durableAppend(batch) {
          await call(log.append, batch);
          await drain();
        },
        drain,
        read: (onValue) =>
          new Promise((res, rej) => {
            log.stream({ offsets: false }).pipe({
              paused: false,
              write: (value) => onValue(value),
              end: (err) => (err && err !== true ? rej(err) : res()),
            });
          }),
        first: () => call(log.get, 0),
        close: () => call(log.close),
      };
    },
  };
}

function hypercore(path) {
  const Hypercore = createRequire(join(job.peers, "package.json"))("hypercore");
  return {
    async open() {
      const core = new Hypercore(path);
      await core.ready();
      return {
        append: (batch) => core.append(batch),
        // No fsync knob: the append resolves once its storage (RocksDB in 11) has the batch.
        durableAppend: (batch) => core.append(batch),
        drain: async () => undefined,
        async read(onValue) {
          for await (const value of core.createReadStream()) onValue(value);
        },
        first: () => core.get(0),
        close: () => core.close(),
      };
    },
  };
}

/**
 * SQLite as a Node developer would use it for a queue: one table, the rowid as the offset, WAL
 * mode. `synchronous=NORMAL` (the WAL synced at checkpoints, not per commit: what a power cut
 * may lose, as pagelog with no flush policy) for the append rows; `FULL` (the WAL synced at every
 * commit) for the durable row, against pagelog's flushMessages 1. A batch is one transaction.
 */
function sqlite(path, durable) {
  const Database = createRequire(join(job.peers, "package.json"))("better-sqlite3");
  return {
    async open() {
      mkdirSync(path, { recursive: true });
      const db = new Database(join(path, "queue.db"));
      db.pragma("journal_mode = WAL");
      db.pragma(`synchronous = ${durable ? "FULL" : "NORMAL"}`);
      db.exec("CREATE TABLE IF NOT EXISTS queue (id INTEGER PRIMARY KEY, value BLOB NOT NULL)");
      const insert = db.prepare("INSERT INTO queue (value) VALUES (?)");
      const appendBatch = db.transaction((batch) => {
        for (const value of batch) insert.run(value);
      });
      // Synchronous, as the library is: the promise only keeps the interface.
      const append = async (batch) => appendBatch(batch);
      return {
        append,
        durableAppend: append,
        drain: async () => undefined,
        async read(onValue) {
          for (const row of db.prepare("SELECT value FROM queue ORDER BY id").iterate()) onValue(row.value);
        },
        first: async () => db.prepare("SELECT value FROM queue WHERE id = ?").get(1)?.value,
        close: async () => db.close(),
      };
    },
  };
}

const LIBS = { pagelog, "async-append-only-log": aaol, hypercore, "better-sqlite3": sqlite };

async function appendAll(lib, recordBytes, mb) {
  const batch = values(PER_CALL, recordBytes);
  const calls = Math.max(1, Math.round((mb * MB) / (PER_CALL * recordBytes)));
  const log = await lib.open();
  const t0 = now();
  for (let i = 0; i < calls; i++) await log.append(batch);
  await log.drain();
  const ms = now() - t0;
  await log.close();
  return { calls, bytes: calls * PER_CALL * recordBytes, ms };
}

async function durable(lib, mb, acknowledged) {
  const batch = values(DURABLE_PER_CALL, 1024);
  const calls = Math.max(1, Math.round((mb * MB) / (DURABLE_PER_CALL * 1024)));
  const log = await lib.open();
  const t0 = now();
  for (let i = 0; i < calls; i++) await (acknowledged ? log.durableAppend(batch) : log.append(batch));
  await log.drain();
  const ms = now() - t0;
  await log.close();
  return { value: calls / (ms / 1000), unit: "appends/s", calls, ms };
}

async function cell() {
  const lib = await LIBS[job.lib]?.(job.path, job.cell === "durable");
  if (lib === undefined) throw new Error(`no library ${job.lib}`);
  switch (job.cell) {
    case "build": {
      rmSync(job.path, { recursive: true, force: true });
      const { bytes, ms } = await appendAll(lib, 1024, job.mb);
      return { value: ms, unit: "ms", bytes };
    }
    case "append": {
      rmSync(job.path, { recursive: true, force: true });
      const { bytes, ms } = await appendAll(lib, job.recordBytes, job.mb);
      return { value: bytes / MB / (ms / 1000), unit: "MB/s", bytes, ms };
    }
    case "durable":
    case "background":
      rmSync(job.path, { recursive: true, force: true });
      return durable(lib, job.mb, job.cell === "durable");
    case "read": {
      const log = await lib.open();
      let count = 0;
      let bytes = 0;
      let touched = 0;
      const t0 = now();
      await log.read((value) => {
        count++;
        bytes += value.length;
        touched ^= value[0];
      });
      const ms = now() - t0;
      await log.close();
      if (count !== job.expect) throw new Error(`read ${count} records, expected ${job.expect}`);
      return { value: bytes / MB / (ms / 1000), unit: "MB/s", count, ms, touched };
    }
    case "reopen": {
      const t0 = now();
      const log = await lib.open();
      const first = await log.first();
      const ms = now() - t0;
      if (first?.length !== 1024) throw new Error(`the first record has ${first?.length} bytes, expected 1024`);
      await log.close();
      return { value: ms, unit: "ms" };
    }
    default:
      throw new Error(`no cell ${job.cell}`);
  }
}

try {
  process.stdout.write(`${JSON.stringify(await cell())}\n`);
} catch (err) {
  process.stderr.write(`${job.lib} ${job.cell}: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
// A peer's storage may keep a handle open after its close: the cell is over.
process.exit();
