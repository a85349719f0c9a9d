/** Runs the pagelog command in-process with a fake terminal-less io, capturing its output. */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../../src/cli/commands.js";
import type { CliIo } from "../../../src/cli/terminal/io.js";

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export async function cli(argv: string[], extra: Partial<CliIo> = {}): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: { write: (t: string) => (stdout += t), isTTY: false },
    stderr: { write: (t: string) => (stderr += t) },
    env: { NO_COLOR: "1" },
    ...extra,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `pagelog-cli-${prefix}-`));
}

/** Flips one bit of the byte at `position` of a file. */
export function flipByte(path: string, position: number): void {
  const bytes = readFileSync(path);
  bytes[position] = bytes[position]! ^ 0x40;
  writeFileSync(path, bytes);
}
