/**
 * The error for a bad command line or demo script: the CLI prints it as one line,
 * `pagelog <command>: <message>`, and exits 2. Here, not in src/cli, because the demo's script
 * parser throws it too and the web page shares that parser.
 */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
