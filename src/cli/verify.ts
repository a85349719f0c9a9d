/** pagelog verify: lands with its issue. */
import type { CliIo } from "./io.js";

export async function run(_args: string[], io: CliIo): Promise<number> {
  io.stdout.write("pagelog verify: not yet — this command lands with its issue.\n");
  return 0;
}
