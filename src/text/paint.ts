/**
 * Terminal colours as ANSI SGR codes, or plain text: what the demo's frames and the CLI's reports
 * are painted with. Whether to colour at all is the CLI's call (src/cli/terminal/style.ts reads the
 * terminal and the environment); this part runs in the browser too.
 */

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
