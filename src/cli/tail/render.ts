/*
 * `pagelog tail`'s lines: one record per line, plain (`offset key value`, each byte string as
 * `pagelog dump` shows it) or JSON (bytes as a UTF-8 string when they are valid UTF-8, else
 * base64 with a flag saying so).
 */
import { showBytes } from "../../inspect/dump-model.js";
import type { TailRecord } from "./sources.js";

/** A key or value for the plain line: `null`, a JSON-quoted string, or `0x` and hex. */
function plainBytes(bytes: Uint8Array | null): string {
  const shown = showBytes(bytes);
  if (shown.text === null) return "null";
  return shown.encoding === "hex" ? `0x${shown.text}` : JSON.stringify(shown.text);
}

/** `12 "key" "value"` (a topic's: `3 12 "key" "value"`, partition first): quoted, so a value with spaces or newlines stays on its line. */
export function plainLine(r: TailRecord): string {
  const partition = r.partition === undefined ? "" : `${r.partition} `;
  return `${partition}${r.offset} ${plainBytes(r.key)} ${plainBytes(r.value)}\n`;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The bytes as JSON: a string (UTF-8), or base64 when they are not UTF-8; null stays null. */
function jsonBytes(bytes: Uint8Array | null): { text: string | null; base64: boolean } {
  if (bytes === null) return { text: null, base64: false };
  try {
    return { text: utf8.decode(bytes), base64: false };
  } catch {
    return { text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"), base64: true };
  }
}

/**
 * `{"offset":12,"timestamp":…,"key":"k","value":"v","headers":[{"key":"h","value":"x"}]}`; a key,
 * value or header value that is not UTF-8 is base64, with `keyBase64`, `valueBase64` or the
 * header's `base64` set to true (absent otherwise).
 */
export function jsonLine(r: TailRecord): string {
  const key = jsonBytes(r.key);
  const value = jsonBytes(r.value);
  const out: Record<string, unknown> = r.partition === undefined ? {} : { partition: r.partition };
  Object.assign(out, { offset: r.offset, timestamp: r.timestamp, key: key.text });
  if (key.base64) out.keyBase64 = true;
  out.value = value.text;
  if (value.base64) out.valueBase64 = true;
  out.headers = r.headers.map((h) => {
    const v = jsonBytes(h.value);
    return v.base64 ? { key: h.key, value: v.text, base64: true } : { key: h.key, value: v.text };
  });
  return `${JSON.stringify(out)}\n`;
}
