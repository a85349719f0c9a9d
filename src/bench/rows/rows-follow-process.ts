/**
 * The `follow-process` row (issue 21): a read-only follower in this process against a writer in
 * another (the bench's child entry, follow-writer.ts) appending 100 x 1 KiB per call on tmpfs.
 * Latency: from the writer's append resolving to the follower yielding that call's last record,
 * on the clock both processes share, with the writer paced (one call every 20 ms) so each call
 * is waited for, at the default `pollMs` (100) and at 10. Throughput: the writer as fast as it
 * can go, the follower's MB/s against the writer's own (reference): 1.0 is keeping up.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { LogDir } from "../../log/log-dir.js";
import { FsStorage } from "../../storage/fs-storage.js";
import { type BenchContext, freshDir, PARTITION, removeDir, scaled } from "../context.js";
import { sharedNow, type WriterJob } from "../follow-writer.js";
import { MB, type Measured } from "../measure.js";

const CALL_BYTES = 100 * 1024;

interface Run {
  /** Per call: the follower's yield minus the writer's resolve, ms. */
  readonly latencies: number[];
  readonly writerMs: number;
  readonly followerMs: number;
  readonly bytes: number;
}

/** The writer, a process of its own; resolves with each call's resolve time by last offset. */
function startWriter(job: WriterJob): { ready: Promise<void>; done: Promise<Map<number, number>> } {
  // The bench's child entry, built next to the CLI (as runner.ts finds it; not imported: a cycle).
  const script = fileURLToPath(new URL("./bench-child.js", import.meta.url));
  if (!existsSync(script)) throw new Error("follow-process needs the built bench child (dist/bench-child.js)");
  const proc = spawn(process.execPath, [script, JSON.stringify({ writer: job })], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const resolved = new Map<number, number>();
  let ready: () => void = () => undefined;
  let pending = "";
  let stderr = "";
  proc.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    pending += chunk;
    for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
      const [kind, offset, at] = pending.slice(0, nl).split(" ");
      pending = pending.slice(nl + 1);
      if (kind === "ready") ready();
      else if (kind === "resolved") resolved.set(Number(offset), Number(at));
    }
  });
  proc.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t));
  const done = new Promise<Map<number, number>>((resolve, reject) => {
    proc.on("error", reject);
    proc.on("close", (code) =>
      code === 0 ? resolve(resolved) : reject(new Error(`the writer failed: ${stderr.trim().split("\n").pop()}`)),
    );
  });
  return { ready: new Promise((r) => (ready = r)), done };
}

/** One writer run against one follower (pollMs); the directory is made fresh. */
async function run(ctx: BenchContext, calls: number, paceMs: number, pollMs: number): Promise<Run> {
  const path = freshDir(ctx.tmpfsDir, "follow-process");
  try {
    // The partition exists before the follower opens: the writer's first log() creates it.
    const storage = await FsStorage.open(path);
    const writer = startWriter({ path, calls, paceMs });
    await writer.ready;
    const dir = await LogDir.open(storage, { readOnly: true, pollMs });
    const seen = new Map<number, number>();
    const last = calls * 100 - 1;
    const started = sharedNow();
    let bytes = 0;
    try {
      const log = await dir.log(PARTITION);
      for await (const r of log.records({ follow: true })) {
        bytes += r.value?.length ?? 0;
        if (r.offset % 100 === 99) seen.set(r.offset, sharedNow());
        if (r.offset === last) break;
      }
    } finally {
      await dir.close();
      await storage.close();
    }
    const followerMs = sharedNow() - started;
    const resolved = await writer.done;
    const times = [...resolved.values()];
    const latencies = [...seen].map(([offset, at]) => at - resolved.get(offset)!);
    return { latencies, writerMs: Math.max(...times) - started, followerMs, bytes };
  } finally {
    removeDir(path);
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function followProcess(ctx: BenchContext): Promise<Measured[]> {
  const out: Measured[] = [];
  for (const pollMs of [100, 10]) {
    const medians: number[] = [];
    const p99s: number[] = [];
    for (let r = 0; r < ctx.repeats; r++) {
      const { latencies } = await run(ctx, scaled(ctx, 100, 5), 20, pollMs);
      medians.push(percentile(latencies, 50));
      p99s.push(percentile(latencies, 99));
    }
    out.push({
      row: `follow-process/latency-poll${pollMs}`,
      unit: "ms",
      pagelog: medians,
      reference: null,
      notes: [
        `append resolved (writer process) -> yielded by a read-only follower (this process), median per repeat; p99 ${p99s.map((v) => v.toFixed(1)).join(", ")} ms; writer paced 1 call / 20 ms, pollMs ${pollMs}`,
      ],
    });
  }
  const follower: number[] = [];
  const writer: number[] = [];
  for (let r = 0; r < ctx.repeats; r++) {
    const calls = scaled(ctx, 1000, 5);
    const result = await run(ctx, calls, 0, 10);
    if (result.bytes !== calls * CALL_BYTES) throw new Error(`the follower read ${result.bytes} bytes`);
    follower.push(result.bytes / MB / (result.followerMs / 1000));
    writer.push(result.bytes / MB / (result.writerMs / 1000));
  }
  out.push({
    row: "follow-process/throughput",
    unit: "MB/s",
    pagelog: follower,
    reference: writer,
    notes: [
      "a read-only follower (pollMs 10) reading what a writer process appends as fast as it can, 100 x 1 KiB per call (tmpfs); reference: the writer's own MB/s over the same run",
    ],
  });
  return out;
}
