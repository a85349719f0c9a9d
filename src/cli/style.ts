/**
 * Whether the CLI colours its output (the codes themselves are in src/text/paint.ts). Off with `--no-color`, a non-empty
 * `NO_COLOR` (https://no-color.org), `FORCE_COLOR=0`, `TERM=dumb` or a stdout that is not a
 * terminal; on with `--color` or `FORCE_COLOR=1` (see {@link colorWanted}).
 */
import type { CliIo } from "./io.js";

export { ANSI, makeStyle, type Style } from "../text/paint.js";

/**
 * Whether to colour, by the usual conventions, first match wins: `--no-color` off, `--color` on;
 * `FORCE_COLOR` set: `0` or `false` off, anything else (`1`, `2`, `3`, `true`, empty) on, as Node
 * and chalk read it (it outranks `NO_COLOR`, as in Node); a non-empty `NO_COLOR` off;
 * `TERM=dumb` off; otherwise on only when stdout is a terminal.
 */
export function colorWanted(
  io: CliIo,
  flags: { color?: boolean | undefined; "no-color"?: boolean | undefined },
): boolean {
  if (flags["no-color"] === true) return false;
  if (flags.color === true) return true;
  const force = io.env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
  const noColor = io.env.NO_COLOR;
  if (noColor !== undefined && noColor !== "") return false;
  if (io.env.TERM === "dumb") return false;
  return io.stdout.isTTY === true;
}
