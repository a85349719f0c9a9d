/**
 * The writer of the `follow-process` row, run as a job of the bench's child entry
 * (bench-child.ts) so that it is a process of its own: it appends `calls` calls of 100 x 1 KiB
 * to the partition, `paceMs` apart (0: as fast as it can), and prints one line per resolved
 * append, `resolved <lastOffset> <ms>`, on the clock both processes share
 * (`performance.timeOrigin + performance.now()`, the wall clock in fractional ms), then `done`.
 */
import { writeSync } from "node:fs";
import { LogDir } from "../log/log-dir.js";
import { FsStorage } from "../storage/fs-storage.js";
import { makeRecords, PARTITION } from "./context.js";

export interface WriterJob {
  readonly path: string;
  readonly calls: number;
  readonly paceMs: number;
}

/** Milliseconds on the wall clock, fractional: comparable between two processes of one machine. */
export function sharedNow(): number {
  return performance.timeOrigin + performance.now();
}

export async function runWriter(job: WriterJob): Promise<void> {
  const storage = await FsStorage.open(job.path);
  const dir = await LogDir.open(storage);
  try {
    const log = await dir.log(PARTITION);
    const records = makeRecords(100, 1024, 21);
    writeSync(1, "ready\n");
    for (let i = 0; i < job.calls; i++) {
      const { lastOffset } = await log.append(records);
      writeSync(1, `resolved ${lastOffset} ${sharedNow()}\n`);
      if (job.paceMs > 0) await new Promise((resolve) => setTimeout(resolve, job.paceMs));
    }
    writeSync(1, "done\n");
  } finally {
    await dir.close();
    await storage.close();
  }
}
