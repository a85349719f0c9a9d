/**
 * Terminal colours: ANSI SGR codes, or plain text. Off with `--no-color`, a non-empty
 * `NO_COLOR` (https://no-color.org), `FORCE_COLOR=0`, `TERM=dumb` or a stdout that is not a
 * terminal; on with `--color` or `FORCE_COLOR=1` (see {@link colorWanted}).
 */
import type { CliIo } from "./io.js";

export interface Style {
  readonly color: boolean;
  /** Wraps `text` in the SGR codes (for example "32" green, "1" bold), or returns it as is. */
  paint(text: string, ...codes: string[]): string;
}

export const ANSI = {
  bold: "1",
  dim: "2",
  red: "31",
  green: "32",
  gold: "33",
  white: "97",
} as const;

export function makeStyle(color: boolean): Style {
  return {
    color,
    paint: (text, ...codes) =>
      color && codes.length > 0 && text !== "" ? `\x1b[${codes.join(";")}m${text}\x1b[0m` : text,
  };
}

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
