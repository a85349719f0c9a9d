/**
 * How the engine opens the log under test (checking that it has the methods its adapter's extra
 * steps need), and what it reports about the disk when a reopen fails.
 */
import type { SimStorage, TraceEvent } from "../../storage/sim-storage.js";
import type { AdapterLog, CrashTestAdapter, CrashTestContext, ExtraStep } from "./adapter.js";

/** The method each extra step calls. */
const METHOD_OF: Record<ExtraStep, keyof AdapterLog | undefined> = {
  concurrentAppends: undefined,
  truncate: "truncateTo",
  deleteBefore: "deleteBefore",
  checkpoint: "checkpoint",
  compact: "compact",
  faults: undefined,
};

/** Opens the log, and checks that it has the methods its adapter's extra steps need. */
export async function openEngineLog(
  adapter: CrashTestAdapter,
  sim: SimStorage,
  context: CrashTestContext,
): Promise<AdapterLog> {
  const log = await adapter.open(sim, context);
  for (const extra of adapter.extraSteps ?? []) {
    const method = METHOD_OF[extra];
    if (method !== undefined && typeof log[method] !== "function")
      throw new TypeError(`adapter ${adapter.name} takes '${extra}' steps, but its log has no ${method}()`);
  }
  if (
    (takes(adapter, "truncate") || takes(adapter, "deleteBefore") || takes(adapter, "compact")) &&
    typeof log.readRecords !== "function"
  )
    throw new TypeError(
      `adapter ${adapter.name} moves offsets (truncate, deleteBefore, compact), so its log needs readRecords()`,
    );
  return log;
}

const takes = (adapter: CrashTestAdapter, step: ExtraStep): boolean => (adapter.extraSteps ?? []).includes(step);

/** Every file the rebooted disk holds, with its size, and the operations before the cut. */
export async function describeDisk(sim: SimStorage, lastTrace: readonly TraceEvent[]): Promise<string> {
  try {
    const lines = ["disk:"];
    const walk = async (dir: string, depth: number): Promise<void> => {
      for (const name of (await sim.list(dir)).sort()) {
        const path = dir === "" ? name : `${dir}/${name}`;
        const stat = await sim.stat(path);
        lines.push(`  ${"  ".repeat(depth)}${name}${stat?.kind === "dir" ? "/" : ` ${stat?.size ?? "?"} bytes`}`);
        if (stat?.kind === "dir" && depth < 4) await walk(path, depth + 1);
      }
    };
    await walk("", 0);
    lines.push("storage operations before the last power cut (most recent last):");
    for (const e of lastTrace)
      lines.push(
        `  ${e.seq} ${e.op} ${e.path}${e.detail === undefined ? "" : ` ${e.detail}`}${e.error === undefined ? "" : ` -> ${e.error}`}`,
      );
    return lines.join("\n");
  } catch (err) {
    return `disk: unreadable (${String(err)})`;
  }
}
