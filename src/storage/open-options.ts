/**
 * The check every pagelog storage makes of `open`'s options: known keys only (a misspelled
 * `readonly` must not open a file for writing), and not `readOnly` with `create`.
 */
import { checkKnownKeys, optionKeys } from "../options.js";
import type { OpenOptions } from "./storage.js";

const OPEN_OPTIONS = optionKeys<OpenOptions>({ create: true, readOnly: true });

export function checkOpenOptions(options: OpenOptions): void {
  checkKnownKeys(options, "open options", OPEN_OPTIONS);
  if (options.readOnly === true && options.create === true)
    throw new TypeError("open: readOnly and create cannot be combined");
}
