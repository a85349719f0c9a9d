/**
 * Whether the CLI colours its output (the codes themselves are in src/text/paint.ts). Off with `--no-color`, a non-empty
 * `NO_COLOR` (https://no-color.org), `FORCE_COLOR=0`, `TERM=dumb` or a stream that is not a
 * terminal; on with `--color` or a non-empty `FORCE_COLOR` other than `0` (see {@link colorWanted}).
 */
import type { CliIo } from "./io.js";

export { ANSI, makeStyle, type Style } from "../../text/paint.js";

/**
 * Whether to colour what is written to `stream` (stdout unless said), by the usual conventions,
 * first match wins: `--no-color` off, `--color` on; a non-empty `FORCE_COLOR`: `0` or `false` off,
 * anything else (`1`, `2`, `3`, `true`) on (it outranks `NO_COLOR`, as in Node); a non-empty
 * `NO_COLOR` off; `TERM=dumb` off; otherwise on only when `stream` is a terminal.
 *
 * An empty `FORCE_COLOR` is taken as unset, as https://force-color.org and https://no-color.org
 * read their variables: a shell or CI that exports `FORCE_COLOR=` has asked for nothing, and a
 * pipe must not get escape codes for it.
 */
export function colorWanted(
  io: CliIo,
  flags: { color?: boolean | undefined; "no-color"?: boolean | undefined },
  stream: { readonly isTTY?: boolean } = io.stdout,
): boolean {
  if (flags["no-color"] === true) return false;
  if (flags.color === true) return true;
  const force = io.env.FORCE_COLOR;
  if (force !== undefined && force !== "") return force !== "0" && force.toLowerCase() !== "false";
  const noColor = io.env.NO_COLOR;
  if (noColor !== undefined && noColor !== "") return false;
  if (io.env.TERM === "dumb") return false;
  return stream.isTTY === true;
}
