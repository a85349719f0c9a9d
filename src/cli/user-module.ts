/** Loading a reader's module named on the command line (`--adapter`, `--policies`). */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { UsageError } from "./io.js";

/** The module at `path` (ES or CommonJS); a usage error naming `--flag` when it cannot be loaded. */
export async function importUserModule(path: string, flag: string): Promise<Record<string, unknown>> {
  try {
    return (await import(/* @vite-ignore */ pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new UsageError(`--${flag}: cannot load '${path}': ${message.split("\n")[0]}`);
  }
}
