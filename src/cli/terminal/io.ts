/**
 * What a command needs from the process: output streams, whether stdout is a terminal, the
 * environment. Passed in (not read from globals) so tests run commands in-process and read
 * their output.
 */
export interface CliIo {
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean; readonly columns?: number };
  readonly stderr: { write(text: string): unknown };
  readonly stdin?: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** A command: its arguments after the command name; resolves with the exit code. */
export type Command = (args: string[], io: CliIo) => Promise<number>;

/** A one-line usage error: printed as `pagelog <command>: <message>`, exit code 2. */
export { UsageError } from "../../text/usage-error.js";

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
}
