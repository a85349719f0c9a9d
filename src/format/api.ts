/*
 * Kafka's format as pagelog/format and pagelog's tools see it: everything of the codec's barrel
 * (index.ts) and the public batch functions with their argument checks
 * (checked/batch-functions.ts). The modules a log loads import index.ts, which leaves those
 * functions out: through it, a bundler that splits would load the `crc32c` known-answer check
 * with every log (batch-functions.ts says why).
 */
export * from "./index.js";
export {
  decodeBatch,
  decodeBatchSync,
  encodeBatch,
  encodeBatchAsync,
  validateBatch,
} from "./checked/batch-functions.js";
