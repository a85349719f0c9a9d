/**
 * `fuzz --adapter PATH`: the crashTest adapter a reader's module exports, read once into a plain
 * adapter (a getter that throws is their module's fault: a usage error, exit 2, as for a module
 * that cannot load), with a time limit on every operation of the log it opens: an `open()` or
 * `append()` that never settles ends the schedule as a violation instead of hanging the fuzzer.
 */
import type { AdapterLog, CrashTestAdapter, ExtraStep } from "../../testing/engine/adapter.js";
import { UsageError } from "../terminal/io.js";
import { errorLine } from "./policies-module.js";
import { importUserModule } from "./user-module.js";

/** Default seconds an adapter's `open()` or one call on its log may take (`fuzz --timeout`). */
export const ADAPTER_TIMEOUT_S = 10;

/** The words every time-limit violation starts with (the CLI does not shrink such a schedule). */
export const DID_NOT_SETTLE = "did not settle within";

const isAdapter = (x: unknown): boolean =>
  typeof x === "object" && x !== null && typeof (x as { open?: unknown }).open === "function";

/** Loads the adapter a module exports: `adapter`, else the default export (or its `adapter`, for CommonJS). */
export async function loadAdapter(path: string, timeoutMs = ADAPTER_TIMEOUT_S * 1000): Promise<CrashTestAdapter> {
  const mod = await importUserModule(path, "adapter");
  let adapter: CrashTestAdapter | undefined;
  try {
    const fromDefault = mod.default as { adapter?: unknown } | undefined;
    const found = [
      mod.adapter,
      mod.default,
      typeof fromDefault === "object" && fromDefault !== null ? fromDefault.adapter : undefined,
    ].find(isAdapter) as CrashTestAdapter | undefined;
    adapter = found === undefined ? undefined : snapshot(found, path);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--adapter: reading the adapter of '${path}' threw ${errorLine(err)}`);
  }
  if (adapter === undefined)
    throw new UsageError(
      `--adapter: '${path}' exports no adapter (a default export or an export named 'adapter', shaped { name, open(storage) })`,
    );
  return withTimeLimit(adapter, timeoutMs);
}

/** The adapter's fields read once and checked, so no getter runs (or throws) again later. */
function snapshot(found: CrashTestAdapter, path: string): CrashTestAdapter {
  const { name, open, extraSteps } = found;
  if (typeof open !== "function") throw new UsageError(`--adapter: the adapter of '${path}' has no open() function`);
  if (extraSteps !== undefined && !Array.isArray(extraSteps))
    throw new UsageError(
      `--adapter: extraSteps of the adapter of '${path}' must be an array, got ${typeof extraSteps}`,
    );
  return {
    name: typeof name === "string" && name !== "" ? name : path,
    open: open.bind(found),
    ...(extraSteps === undefined ? {} : { extraSteps: [...(extraSteps as readonly string[])] as readonly ExtraStep[] }),
  };
}

/** The promise of `what`, rejected with a clear error if it has not settled within `ms`. */
function limited<T>(what: string, ms: number, call: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const err = new Error(
        `${what} ${DID_NOT_SETTLE} ${ms / 1000} s: a promise that never resolves? (--timeout S gives it longer)`,
      );
      err.stack = `${err.name}: ${err.message}`; // the timer's frames are pagelog's, not the adapter's
      reject(err);
    }, ms);
    const settle =
      <A>(f: (a: A) => void) =>
      (a: A) => {
        clearTimeout(timer);
        f(a);
      };
    Promise.resolve().then(call).then(settle(resolve), settle(reject));
  });
}

/** The async methods of a log under test (durableEnd and recoveredFiles are synchronous: they cannot hang on a promise). */
const ASYNC_METHODS = [
  "append",
  "flush",
  "close",
  "readAll",
  "appendRecords",
  "readRecords",
  "truncateTo",
  "deleteBefore",
  "checkpoint",
  "compact",
  "selfCheck",
] as const;

/** The adapter with `open()` and every async call on its logs limited to `ms`. */
function withTimeLimit(adapter: CrashTestAdapter, ms: number): CrashTestAdapter {
  return {
    ...adapter,
    open: async (storage, context) => {
      const log = await limited(`the adapter's open()`, ms, () => adapter.open(storage, context));
      return limitedLog(log, ms);
    },
  };
}

function limitedLog(log: AdapterLog, ms: number): AdapterLog {
  const out: Record<string, unknown> = {};
  for (const name of ASYNC_METHODS) {
    const method = (log as unknown as Record<string, unknown>)[name];
    if (typeof method === "function")
      out[name] = (...args: unknown[]) =>
        limited(`the log's ${name}()`, ms, () => (method as (...a: unknown[]) => Promise<unknown>).apply(log, args));
  }
  if (typeof log.durableEnd === "function") out.durableEnd = () => log.durableEnd!();
  if (typeof log.recoveredFiles === "function") out.recoveredFiles = () => log.recoveredFiles!();
  return out as unknown as AdapterLog;
}
