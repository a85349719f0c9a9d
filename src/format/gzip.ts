/**
 * gzip for record batches (codec 1) through the platform's `CompressionStream` /
 * `DecompressionStream`, which Node ≥ 18 and every current browser provide, so the format layer
 * needs no `node:zlib`. Both are streams, hence async.
 *
 * Decompression is capped: a batch of a few KiB can inflate to gigabytes (a "zip bomb"), so
 * reading stops with `PAGELOG_RECORD_TOO_LARGE` as soon as the output passes the cap.
 */
import { ErrorCode, PagelogError } from "../errors.js";

const GZIP = "gzip";

/** The stream APIs want ArrayBuffer-backed chunks (not SharedArrayBuffer). */
function asChunk(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]!.length === total) return chunks[0]!;
  const out = new Uint8Array(total);
  let position = 0;
  for (const chunk of chunks) {
    out.set(chunk, position);
    position += chunk.length;
  }
  return out;
}

/**
 * Feeds `input` through `stream` and collects the output, stopping once it passes `maxBytes`.
 * Writing and reading run concurrently: awaiting the write first could deadlock on back-pressure.
 */
async function pump(
  stream: CompressionStream | DecompressionStream,
  input: Uint8Array,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; overflow: boolean }> {
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const written = writer.write(asChunk(input)).then(() => writer.close());
  // If reading fails or stops early, the write side rejects too; that rejection is expected.
  written.catch(() => {});
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return { bytes: new Uint8Array(0), overflow: true };
    }
    chunks.push(value);
  }
  await written;
  return { bytes: concat(chunks, total), overflow: false };
}

/** gzip-compresses `bytes`. */
export async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const { bytes: out } = await pump(new CompressionStream(GZIP), bytes, Number.POSITIVE_INFINITY);
  return out;
}

/**
 * Decompresses gzip `bytes`, producing at most `maxBytes` bytes.
 *
 * @throws PagelogError `PAGELOG_CORRUPT` if the input is not valid gzip;
 *   `PAGELOG_RECORD_TOO_LARGE` if the output would exceed `maxBytes`.
 */
export async function gunzip(bytes: Uint8Array, maxBytes: number): Promise<Uint8Array> {
  let result: { bytes: Uint8Array; overflow: boolean };
  try {
    result = await pump(new DecompressionStream(GZIP), bytes, maxBytes);
  } catch (cause) {
    throw new PagelogError(
      `gzip data in batch is invalid: ${(cause as Error)?.message ?? String(cause)}`,
      ErrorCode.CORRUPT,
      { cause },
    );
  }
  if (result.overflow) {
    throw new PagelogError(`gzip batch decompresses to more than ${maxBytes} bytes`, ErrorCode.RECORD_TOO_LARGE);
  }
  return result.bytes;
}
