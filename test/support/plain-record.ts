/** A record as the tests compare it: strings instead of bytes (one shape for every suite). */
import type { LogRecord } from "../../src/index.js";

export interface PlainRecord {
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
  headers: Array<{ key: string; value: string | null }>;
}

const decoder = new TextDecoder();
const str = (b: Uint8Array | null): string | null => (b === null ? null : decoder.decode(b));

export function plain(r: LogRecord): PlainRecord {
  return {
    offset: r.offset,
    timestamp: r.timestamp,
    key: str(r.key),
    value: str(r.value),
    headers: r.headers.map((h) => ({ key: h.key, value: str(h.value) })),
  };
}
