/**
 * pagelog's own `Log` as a `crashTest` adapter: the reference every other log is measured
 * against, and a complete example of writing an adapter.
 */
import type { Clock, LogOptions } from "../log/log-options.js";
import { LogDir, type LogDirOptions } from "../log/log-dir.js";
import type { Storage } from "../storage/storage.js";
import type { AdapterLog, CrashTestAdapter } from "./crash-test.js";

/** The partition the adapter writes. */
const PARTITION = "crash-0";

/**
 * A clock that moves 1 ms per reading: `flushMs` and `segmentMs` fire after a number of calls,
 * never after real time, so a schedule replays exactly from its seed.
 */
function steppingClock(): Clock {
  let t = 1_700_000_000_000;
  return { now: () => t++ };
}

/**
 * The adapter for pagelog's `Log` with the given options (by default small segments, so that
 * workloads roll; the flush policy off, so only `flush()` and `close()` make data durable).
 * Values go in as records' values; `readAll` reads them back from the log start. `dirOptions`
 * sets the directory's `maxOpenFiles` (a small bound makes every schedule evict and reopen files).
 */
export function pagelogAdapter(
  options: LogOptions = {},
  dirOptions: Pick<LogDirOptions, "maxOpenFiles"> = {},
): CrashTestAdapter {
  const logOptions: LogOptions = { segmentBytes: 1024, indexIntervalBytes: 128, ...options };
  const maxOpenFiles = dirOptions.maxOpenFiles === undefined ? {} : { maxOpenFiles: dirOptions.maxOpenFiles };
  return {
    name: `pagelog(${JSON.stringify(options)}${dirOptions.maxOpenFiles === undefined ? "" : `, maxOpenFiles ${dirOptions.maxOpenFiles}`})`,
    async open(storage: Storage): Promise<AdapterLog> {
      const dir = await LogDir.open(storage, { log: { clock: steppingClock(), ...logOptions }, ...maxOpenFiles });
      // A failed open is left as it is: the harness reboots the storage (or reports the error).
      const opened = await dir.log(PARTITION);
      return {
        async append(values) {
          await opened.append(values.map((value) => ({ value })));
        },
        flush: () => opened.flush(),
        close: () => dir.close(),
        async readAll() {
          const out: Uint8Array[] = [];
          for await (const r of opened.records({ from: opened.startOffset })) out.push(r.value ?? new Uint8Array(0));
          return out;
        },
      };
    },
  };
}
