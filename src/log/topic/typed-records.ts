/*
 * Records with serializers applied: what a Topic and a TypedLog take and give. The shapes are
 * the log's (`RecordInput`, `LogRecord`) with the key and value typed; headers stay bytes.
 */
import type { HeadersInput } from "../../format/record-codec.js";
import { describeValue } from "../../format/record-codec.js";
import type { LogRecord } from "../log.js";
import {
  deserializeField,
  type FieldInput,
  type RecordSerde,
  resolveRecordSerde,
  type ResolvedSerde,
  serializeField,
} from "./serde.js";

/** A record to append, its key and value of the types the serializers take. */
export interface TypedRecordInput<K, V> {
  /** The key (Kafka's null key when absent or null: never given to the serializer). @defaultValue null */
  key?: FieldInput<K> | null;
  /** The value; null is Kafka's null value (a tombstone in a compacted log), never serialized. */
  value: FieldInput<V> | null;
  /** The record's headers, bytes as in `log.append`. @defaultValue no headers */
  headers?: HeadersInput;
  /** Milliseconds since the epoch (CreateTime). @defaultValue the time its batch is written */
  timestamp?: number;
}

/** A record read back, its key and value deserialized (null where they were null). */
export interface TypedRecord<K, V> extends Omit<LogRecord, "key" | "value"> {
  /** The deserialized key, or null. */
  key: K | null;
  /** The deserialized value, or null. */
  value: V | null;
}

/** A record's plain form for `log.append`, serialized (a field names itself `records[i].key`). */
export interface PlainInput {
  key: Uint8Array | string | null;
  value: Uint8Array | string | null;
  headers?: HeadersInput;
  timestamp?: number;
}

/** The two serdes of a topic or typed log, resolved once. */
export class RecordCodec {
  readonly #key: ResolvedSerde;
  readonly #value: ResolvedSerde;
  /** True when both are bytes: records pass through untouched. */
  readonly plain: boolean;

  constructor(spec: RecordSerde<unknown, unknown> | undefined, what: string) {
    const { key, value } = resolveRecordSerde(spec, what);
    this.#key = key;
    this.#value = value;
    this.plain = key.name === "bytes" && value.name === "bytes";
  }

  /** `records[index]` serialized into the log's plain form; the log's append then checks the bytes. */
  serialize(record: unknown, index: number): PlainInput {
    if (typeof record !== "object" || record === null || Array.isArray(record))
      throw new TypeError(`records[${index}] must be an object, got ${describeValue(record)}`);
    const { key, value, headers, timestamp } = record as TypedRecordInput<unknown, unknown>;
    if (value === undefined) throw new TypeError(`records[${index}].value must be given (null for a null value)`);
    const out: PlainInput = {
      key: serializeField(this.#key, key, `records[${index}].key`),
      value: serializeField(this.#value, value, `records[${index}].value`),
    };
    if (headers !== undefined) out.headers = headers;
    if (timestamp !== undefined) out.timestamp = timestamp;
    return out;
  }

  /** A stored record with its key and value deserialized; a rejection names `log` and the offset. */
  deserialize<K, V>(log: string, record: LogRecord): TypedRecord<K, V> {
    if (this.plain) return record as TypedRecord<K, V>;
    const { offset } = record;
    return {
      ...record,
      key: deserializeField(this.#key, record.key, { log, offset, field: "key" }) as K | null,
      value: deserializeField(this.#value, record.value, { log, offset, field: "value" }) as V | null,
    };
  }
}
