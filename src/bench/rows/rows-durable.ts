/**
 * `durable-append`, on the real disk: `flushMessages: 1`, so every append is durable when it
 * resolves, against `writeSync` + `fdatasyncSync` of the same bytes per call; and the syncs each
 * append costs, counted on a wrapper of the storage (`durable-append/syncs`).
 */
import { closeSync, fdatasyncSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { encodeBatch } from "../../format/api.js";
import { type BenchContext, freshDir, makeRecords, openBenchLog, removeDir, scaled } from "../context.js";
import { CountingStorage } from "../counting-storage.js";
import { type Measured, perSecond, timed } from "../measure.js";

export async function durableAppend(ctx: BenchContext): Promise<Measured[]> {
  const records = makeRecords(64, 1024, 5);
  const calls = scaled(ctx, 200, 2);
  const batch = encodeBatch(records, { baseOffset: 0, timestamp: 0, crc32c: ctx.crc });
  const pagelog: number[] = [];
  const reference: number[] = [];
  const syncsPerAppend: number[] = [];
  for (let r = 0; r < ctx.repeats; r++) {
    const path = freshDir(ctx.diskDir, "durable");
    try {
      let counter: CountingStorage | undefined;
      const opened = await openBenchLog(ctx, path, {
        log: { flushMessages: 1 },
        wrap: (storage) => (counter = new CountingStorage(storage)),
      });
      try {
        // One append first: the new segment's directory entry is made durable with it, once.
        await opened.log.append(records);
        const before = counter!.syncs;
        const { ms } = await timed(async () => {
          for (let i = 0; i < calls; i++) await opened.log.append(records);
        });
        syncsPerAppend.push((counter!.syncs - before) / calls);
        pagelog.push(perSecond(calls, ms));
      } finally {
        await opened.close();
      }
      const fd = openSync(join(path, "reference.log"), "w");
      try {
        writeSync(fd, batch);
        fdatasyncSync(fd);
        const { ms } = await timed(() => {
          for (let i = 0; i < calls; i++) {
            writeSync(fd, batch);
            fdatasyncSync(fd);
          }
        });
        reference.push(perSecond(calls, ms));
      } finally {
        closeSync(fd);
      }
    } finally {
      removeDir(path);
    }
  }
  return [
    {
      row: "durable-append",
      unit: "appends/s",
      pagelog,
      reference,
      notes: [
        `${calls} appends of 64 x 1 KiB per repeat, on the real disk (--dir); reference: writeSync + fdatasyncSync of the same bytes per call`,
      ],
    },
    {
      row: "durable-append/syncs",
      unit: "syncs/append",
      pagelog: syncsPerAppend,
      reference: syncsPerAppend.map(() => 1),
      notes: ["file sync() and syncDir() calls per durable append, counted on a wrapper of FsStorage; reference: 1"],
    },
  ];
}
