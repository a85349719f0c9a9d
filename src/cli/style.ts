/**
 * Terminal colours: ANSI SGR codes, or plain text. Off with `--no-color` or a non-empty
 * `NO_COLOR` (https://no-color.org), on with `--color`, otherwise on only when stdout is a TTY.
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

export function colorWanted(
  io: CliIo,
  flags: { color?: boolean | undefined; "no-color"?: boolean | undefined },
): boolean {
  if (flags["no-color"] === true) return false;
  if (flags.color === true) return true;
  const noColor = io.env.NO_COLOR;
  if (noColor !== undefined && noColor !== "") return false;
  return io.stdout.isTTY === true;
}
