// How much memory opening a large log costs. Builds a log of SIZE_GIB (default 2) once under
// the OS temp dir (kept between runs), then opens it in a fresh process, cleanly and after a
// simulated crash (marker removed), and prints RSS and heap. Run: node bench/open-memory.mjs 10
import { execFileSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const gib = Number(process.argv[2] ?? 2);
const dir = join(tmpdir(), `pagelog-open-memory-${gib}g`);
const dist = new URL("../dist/node.js", import.meta.url).href;

if (process.argv[3] === "--child") {
  const { LogDir } = await import(dist);
  const before = process.memoryUsage();
  const started = performance.now();
  const logs = await LogDir.open(dir);
  const log = await logs.log("big-0");
  const opened = performance.now() - started;
  global.gc?.();
  const after = process.memoryUsage();
  console.log(
    JSON.stringify({
      segments: log.segmentCount,
      bytes: log.size,
      clean: log.recovery.clean,
      openMs: Math.round(opened),
      rssMB: Math.round(after.rss / 2 ** 20),
      heapMB: Math.round(after.heapUsed / 2 ** 20),
      baselineRssMB: Math.round(before.rss / 2 ** 20),
    }),
  );
  await logs.close();
  process.exit(0);
}

if (!existsSync(join(dir, "big-0"))) {
  const { LogDir } = await import(dist);
  const logs = await LogDir.open(dir);
  const log = await logs.log("big-0");
  const value = new Uint8Array(1024).fill(7);
  const batch = Array.from({ length: 256 }, () => ({ value }));
  const started = Date.now();
  while (log.size < gib * 2 ** 30) await Promise.all(Array.from({ length: 8 }, () => log.append(batch)));
  await logs.close();
  console.log(`built ${gib} GiB in ${((Date.now() - started) / 1000).toFixed(0)} s at ${dir}`);
}
const child = (args) =>
  JSON.parse(
    execFileSync(
      process.execPath,
      ["--expose-gc", new URL(import.meta.url).pathname, String(gib), "--child", ...args],
      { encoding: "utf8" },
    ),
  );
console.log("clean open:  ", JSON.stringify(child([])));
rmSync(join(dir, ".kafka_cleanshutdown"), { force: true });
console.log("unclean open:", JSON.stringify(child([])));
