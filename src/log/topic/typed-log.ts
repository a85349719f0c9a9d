/*
 * `typedLog(log, serde)`: one log seen through serializers. The Log itself stays bytes (it is
 * shared: `dir.log(name)` gives every caller the same one); the view only serializes what it
 * appends and deserializes what it reads.
 */
import type { Log, LogRecord, ReadOptions, RecordsOptions } from "../log.js";
import type { RecordSerde } from "./serde.js";
import { RecordCodec, type TypedRecord, type TypedRecordInput } from "./typed-records.js";

/** A log's records with their keys and values typed: `typedLog<string, Order>(log, { key: "utf8", value: "json" })`. */
export class TypedLog<K = Uint8Array, V = Uint8Array> {
  /** The log underneath, in bytes. */
  readonly log: Log;
  readonly #codec: RecordCodec;

  /** @internal Made by `typedLog(log, serde)`. */
  constructor(log: Log, serde: RecordSerde<K, V> | undefined) {
    this.log = log;
    this.#codec = new RecordCodec(serde, "serde");
  }

  /**
   * Serializes the records and appends them as `log.append` does (one batch). A serializer
   * that fails is `PAGELOG_SERIALIZATION`, and nothing is appended.
   */
  append(records: ReadonlyArray<TypedRecordInput<K, V>>): Promise<{ baseOffset: number; lastOffset: number }> {
    let plain;
    try {
      // Not an array: the log's own TypeError says so.
      if (!Array.isArray(records)) return this.log.append(records as unknown as []);
      plain = (records as readonly unknown[]).map((r, i) => this.#codec.serialize(r, i));
    } catch (err) {
      return Promise.reject(err);
    }
    return this.log.append(plain);
  }

  /** `log.read`, deserialized: a rejected key or value is `PAGELOG_SERIALIZATION` naming the offset. */
  async read(offset: number, options: ReadOptions = {}): Promise<Array<TypedRecord<K, V>>> {
    return (await this.log.read(offset, options)).map((r) => this.#decode(r));
  }

  /** `log.records`, deserialized: a rejected key or value ends it with `PAGELOG_SERIALIZATION`. */
  async *records(options: RecordsOptions = {}): AsyncGenerator<TypedRecord<K, V>, void, undefined> {
    for await (const record of this.log.records(options)) yield this.#decode(record);
  }

  #decode(record: LogRecord): TypedRecord<K, V> {
    return this.#codec.deserialize<K, V>(this.log.name, record);
  }
}

/**
 * A typed view of `log`: appends serialize keys and values with `serde`'s serializers, reads
 * deserialize them. With a built-in name, say the types:
 * `typedLog<string, Order>(log, { key: "utf8", value: "json" })`; a serialize and deserialize
 * pair types its field itself.
 */
export function typedLog<K = Uint8Array, V = Uint8Array>(log: Log, serde: RecordSerde<K, V>): TypedLog<K, V> {
  if (typeof log !== "object" || log === null || typeof (log as { append?: unknown }).append !== "function")
    throw new TypeError("typedLog takes a Log (from dir.log(name))");
  return new TypedLog(log, serde);
}
