/**
 * What the compressed batches' paths share, loaded with the codec (its few names cost an entry
 * nothing it does not call): the gzip codec's door, the error of a codec pagelog does not read,
 * and the default cap on a batch's decompressed records.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import type { BatchHeader } from "../batch-header.js";
import { COMPRESSION_CODEC_MASK, COMPRESSION_NAMES } from "../batch-layout.js";

/** The error for a batch compressed by a codec pagelog does not read (`hint`: where to read it). */
export function unsupported(header: BatchHeader, hint: string): PagelogError {
  const name = COMPRESSION_NAMES[header.compression & COMPRESSION_CODEC_MASK] ?? String(header.compression);
  return new PagelogError(
    `batch at offset ${header.baseOffset} is ${name}-compressed${hint}`,
    ErrorCode.UNSUPPORTED_COMPRESSION,
  );
}

/**
 * Default cap on a batch's decompressed records section: 64 MiB. Kafka's default
 * `max.message.bytes` is 1 MiB of *compressed* batch, and gzip rarely exceeds 10:1 on real
 * data, so 64 MiB leaves room for unusual batches while bounding what one batch can allocate.
 * (decode-compressed.ts applies it; it is here so that naming it loads no codec.)
 */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024;

type Gzip = typeof import("../gzip.js");
/** The gzip codec once an `import()` of it resolved (a failed load is not kept). */
let gzipCodec: Gzip | undefined;

/**
 * The door to the gzip codec (gzip.ts), a part loaded on first use: the first gzip batch
 * decoded (decode-compressed.ts), or the first `encodeBatchAsync` that compresses. An `import()`, so a
 * bundler that splits puts it in a chunk of its own, which a page whose batches are all
 * uncompressed (as every batch pagelog's log writes) never loads (docs/entry-points.md). Both
 * callers are already asynchronous; a chunk that fails to load fails that call, and the next
 * call loads it.
 */
export function loadGzip(): Promise<Gzip> {
  if (gzipCodec !== undefined) return Promise.resolve(gzipCodec);
  return import("../gzip.js").then((part) => (gzipCodec = part));
}
