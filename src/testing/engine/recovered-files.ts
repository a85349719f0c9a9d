/*
 * The check of what a recovery claims to have made durable (`AdapterLog.recoveredFiles`): each
 * file the log now counts on must read exactly what the simulated disk holds, so that no power
 * cut, now or later, can change it under a log that will not check it again. It reads the
 * simulator's own view (no storage operation is counted, so a schedule's cuts fall where they
 * did without it).
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import type { FileMap, SimStorage } from "../../storage/sim-storage.js";
import type { AdapterLog } from "./adapter.js";
import { CrashViolation } from "./violation.js";

/** Throws a `CrashViolation` naming the first listed file a power cut now could change. */
export function checkRecoveredFiles(sim: SimStorage, log: AdapterLog, trace: readonly string[], when: string): void {
  if (typeof log.recoveredFiles !== "function") return;
  for (const path of log.recoveredFiles()) {
    const problem = notDurable(fileMap(sim, path));
    if (problem !== undefined)
      throw new CrashViolation(
        `${when}: recovery left ${path} not durable, though the log counts on it from now on: ${problem}`,
        trace,
      );
  }
}

/** The simulator's map of the file, or undefined if there is none (nothing to lose). */
function fileMap(sim: SimStorage, path: string): FileMap | undefined {
  try {
    return sim.inspect(path);
  } catch (err) {
    if (err instanceof PagelogError && err.code === ErrorCode.NOT_FOUND) return undefined;
    throw err;
  }
}

/** What a power cut now could change in the file, or undefined if nothing. */
function notDurable(map: FileMap | undefined): string | undefined {
  if (map === undefined) return undefined;
  if (map.size !== map.durableSize)
    return `it reads ${map.size} bytes but its durable size is ${map.durableSize} (a power cut may undo the change)`;
  // Torn bytes came out of an earlier cut: they are on the disk as they read.
  const cached = map.ranges.find((r) => r.state === "cached");
  if (cached !== undefined)
    return `bytes [${cached.start}, ${cached.end}) are only in the page cache (a power cut may lose them)`;
  return undefined;
}
