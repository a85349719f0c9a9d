/*
 * Serializers: what turns a record's key or value into bytes on the way in and back on the way
 * out. Bytes stay the default; "utf8" and "json" are built in; any `{ serialize, deserialize }`
 * pair is taken. null stays null both ways (Kafka's null key, and a tombstone's null value): a
 * serializer never sees it. A deserializer that rejects stored bytes is `PAGELOG_SERIALIZATION`
 * naming the partition and the offset, never a record skipped or read as something else.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { describeValue } from "../../format/record-codec.js";

/** A serializer and its deserializer for one field (key or value) of a record. */
export interface Serde<T> {
  /** The bytes (a string is written as UTF-8) for a value; never called for null. */
  serialize(value: T): Uint8Array | string;
  /**
   * The value of stored bytes; never called for null. The bytes are a view into the read buffer:
   * copy them if the value keeps them. Throw to reject them (the read fails `PAGELOG_SERIALIZATION`).
   */
  deserialize(bytes: Uint8Array): T;
}

/**
 * A built-in serializer's name, or a pair, for a field read back as `T`: `"bytes"` for
 * `Uint8Array` (the default: a string is written as UTF-8, read back as bytes), `"utf8"` for
 * `string`, `"json"` for anything `JSON.stringify` writes and `JSON.parse` reads.
 */
export type SerdeSpec<T> =
  Serde<T> | ([T] extends [Uint8Array] ? "bytes" : [T] extends [string] ? "utf8" | "json" : "json");

/** The serializers of a topic or typed log: one for keys, one for values, bytes when absent. */
export interface RecordSerde<K, V> {
  /** The keys' serializer. @defaultValue "bytes" */
  readonly key?: SerdeSpec<K>;
  /** The values' serializer. @defaultValue "bytes" */
  readonly value?: SerdeSpec<V>;
}

/** A field as given to an append: bytes fields take a string (UTF-8) too, as `log.append` does. */
export type FieldInput<T> = [T] extends [Uint8Array] ? Uint8Array | string : T;

/** A serde resolved to two functions; `bytes` is the identity (no copy, no check beyond append's). */
export interface ResolvedSerde {
  readonly name: string;
  readonly serialize: (value: unknown) => unknown;
  readonly deserialize: (bytes: Uint8Array) => unknown;
}

/** Fatal: bytes that are not UTF-8 are rejected, never read as U+FFFD that nobody wrote. */
const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

const BUILT_IN: Record<string, ResolvedSerde> = {
  bytes: { name: "bytes", serialize: (v) => v, deserialize: (b) => b },
  utf8: {
    name: "utf8",
    serialize: (v) => v, // serializeField checked it is a string
    deserialize: (b) => utf8Decoder.decode(b),
  },
  json: {
    name: "json",
    serialize: (v) => {
      const text = JSON.stringify(v) as string | undefined;
      // JSON.stringify(undefined), of a function or a symbol: no JSON text, so nothing to read back.
      if (text === undefined) throw new TypeError(`${describeValue(v)} has no JSON form`);
      return text;
    },
    deserialize: (b) => JSON.parse(utf8Decoder.decode(b)) as unknown,
  },
};

/** The serde `spec` names (`field` names it in a TypeError): a built-in name or a pair of functions. */
function resolveSerde(spec: unknown, field: string): ResolvedSerde {
  if (spec === undefined) return BUILT_IN.bytes!;
  if (typeof spec === "string") {
    const builtIn = Object.hasOwn(BUILT_IN, spec) ? BUILT_IN[spec] : undefined;
    if (builtIn !== undefined) return builtIn;
  } else if (typeof spec === "object" && spec !== null) {
    const { serialize, deserialize } = spec as Partial<Serde<unknown>>;
    if (typeof serialize === "function" && typeof deserialize === "function") {
      return {
        name: "custom",
        serialize: (v) => serialize.call(spec, v),
        deserialize: (b) => deserialize.call(spec, b),
      };
    }
  }
  throw new TypeError(
    `${field} must be "bytes", "utf8", "json" or an object with serialize and deserialize functions, got ${describeValue(spec)}`,
  );
}

/** Both fields' serdes, from a `{ key, value }` object (or undefined: bytes both). */
export function resolveRecordSerde(spec: unknown, what: string): { key: ResolvedSerde; value: ResolvedSerde } {
  if (spec === undefined) return { key: BUILT_IN.bytes!, value: BUILT_IN.bytes! };
  if (typeof spec !== "object" || spec === null)
    throw new TypeError(`${what} must be an object { key?, value? }, got ${describeValue(spec)}`);
  const { key, value, ...rest } = spec as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new TypeError(`${what} has no option ${JSON.stringify(unknown[0])}: key or value`);
  return { key: resolveSerde(key, `${what}.key`), value: resolveSerde(value, `${what}.value`) };
}

/**
 * A field's bytes for an append; null and undefined stay null. A built-in given the wrong type is
 * a TypeError naming the field; a serializer (JSON.stringify of a BigInt, a cycle, undefined) that throws or returns no bytes is
 * `PAGELOG_SERIALIZATION`, with its error as the cause.
 */
export function serializeField(serde: ResolvedSerde, value: unknown, field: string): Uint8Array | string | null {
  if (value === null || value === undefined) return null;
  // Bytes go to log.append as given: its checks name a bad one (a TypeError), as for a plain log.
  if (serde.name === "bytes") return value as Uint8Array | string;
  // A programmer's mistake, as log.append's own checks are: a TypeError naming the field.
  if (serde.name === "utf8" && typeof value !== "string")
    throw new TypeError(`${field} must be a string (its serde is "utf8"), got ${describeValue(value)}`);
  let out: unknown;
  try {
    out = serde.serialize(value);
  } catch (err) {
    throw new PagelogError(
      `${field}: the ${serde.name} serializer failed: ${describeError(err)}`,
      ErrorCode.SERIALIZATION,
      {
        cause: err,
      },
    );
  }
  if (typeof out !== "string" && !(out instanceof Uint8Array))
    throw new PagelogError(
      `${field}: the ${serde.name} serializer returned ${describeValue(out)}, not a Uint8Array or a string`,
      ErrorCode.SERIALIZATION,
    );
  return out;
}

/** A stored field's value; null stays null. A rejection is `PAGELOG_SERIALIZATION` naming the log and offset. */
export function deserializeField(
  serde: ResolvedSerde,
  bytes: Uint8Array | null,
  where: { readonly log: string; readonly offset: number; readonly field: "key" | "value" },
): unknown {
  if (bytes === null) return null;
  try {
    return serde.deserialize(bytes);
  } catch (err) {
    throw new PagelogError(
      `${where.log} offset ${where.offset}: its ${where.field} is not ${serde.name === "custom" ? "what the deserializer reads" : serde.name}: ${describeError(err)}`,
      ErrorCode.SERIALIZATION,
      { cause: err, path: where.log },
    );
  }
}

function describeError(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : describeValue(err);
}
