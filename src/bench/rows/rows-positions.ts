/*
 * `consumer-commits`, on the real disk: consumer commits with 64 always in flight (8 consumers, 8
 * partitions), against the same atomic file write done once per commit (writeFileSync of the temp
 * file, fdatasyncSync, renameSync, the directory fsynced); and the syncs each commit costs, counted
 * on a wrapper of the storage (`consumer-commits/syncs`): shared writes make it a fraction of one.
 */
import { closeSync, fdatasyncSync, fsyncSync, openSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type BenchContext, freshDir, openBenchLog, removeDir, scaled } from "../context.js";
import { CountingStorage } from "../counting-storage.js";
import { type Measured, perSecond, timed } from "../measure.js";

const IN_FLIGHT = 64;

export async function consumerCommits(ctx: BenchContext): Promise<Measured[]> {
  const commits = scaled(ctx, 4096, IN_FLIGHT);
  const referenceCommits = scaled(ctx, 256, 4);
  const pagelog: number[] = [];
  const reference: number[] = [];
  const syncsPerCommit: number[] = [];
  for (let r = 0; r < ctx.repeats; r++) {
    const path = freshDir(ctx.diskDir, "positions");
    try {
      let counter: CountingStorage | undefined;
      const opened = await openBenchLog(ctx, path, { wrap: (storage) => (counter = new CountingStorage(storage)) });
      try {
        const consumers = Array.from({ length: 8 }, (_, i) => opened.dir.consumer(`group-${i}`));
        await consumers[0]!.commit("bench-0", 0); // the file's first write, not measured
        const before = counter!.syncs;
        let issued = 0;
        // 64 workers, each committing again as soon as its last commit resolved: always 64 in flight.
        const worker = async (w: number): Promise<void> => {
          while (issued < commits) {
            const n = issued++;
            await consumers[w % 8]!.commit(`bench-${Math.floor(w / 8)}`, n);
          }
        };
        const { ms } = await timed(() => Promise.all(Array.from({ length: IN_FLIGHT }, (_, w) => worker(w))));
        syncsPerCommit.push((counter!.syncs - before) / commits);
        pagelog.push(perSecond(commits, ms));
      } finally {
        await opened.close();
      }
      reference.push(perSecond(referenceCommits, referenceCommitMs(path, referenceCommits)));
    } finally {
      removeDir(path);
    }
  }
  return [
    {
      row: "consumer-commits",
      unit: "commits/s",
      pagelog,
      reference,
      notes: [
        `${commits} commits per repeat, ${IN_FLIGHT} in flight (8 consumers x 8 partitions), on the real disk (--dir); reference: one atomic file write per commit (write, fdatasync, rename, directory fsync)`,
      ],
    },
    {
      row: "consumer-commits/syncs",
      unit: "syncs/commit",
      pagelog: syncsPerCommit,
      reference: syncsPerCommit.map(() => 2),
      notes: [
        "file sync() and syncDir() calls per commit, counted on a wrapper of FsStorage; reference: 2 (one write per commit)",
      ],
    },
  ];
}

/** Milliseconds for `count` commits written one at a time, each its own atomic file write. */
function referenceCommitMs(path: string, count: number): number {
  const file = join(path, "reference-positions");
  const dirFd = openSync(path, "r");
  try {
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const fd = openSync(`${file}.tmp`, "w");
      try {
        writeFileSync(fd, `0\n1\ngroup-0 bench 0 ${i}\n`);
        fdatasyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(`${file}.tmp`, file);
      fsyncSync(dirFd);
    }
    return performance.now() - started;
  } finally {
    closeSync(dirFd);
  }
}
