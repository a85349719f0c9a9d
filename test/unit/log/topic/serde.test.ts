/**
 * Serializers on topics and logs: the built-ins ("bytes", "utf8", "json") and custom pairs round
 * trip; null keys and values stay null (never given to a serializer); a serializer that fails
 * appends nothing; a stored value a deserializer rejects is PAGELOG_SERIALIZATION naming the
 * partition and offset, in read, records() and a topic's merge, never a skipped record.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode, PagelogError } from "../../../../src/errors.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import { typedLog } from "../../../../src/log/topic/typed-log.js";
import type { Serde } from "../../../../src/log/topic/serde.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { expectCode } from "../helpers.js";

interface Order {
  id: number;
  items: string[];
  note?: string | null;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const r of it) out.push(r);
  return out;
}

const decoder = new TextDecoder();

describe("serializers: round trips", () => {
  it("utf8 keys and json values come back as strings and objects; the bytes on disk are Kafka's (UTF-8, JSON text)", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 1 }));
    const topic = await dir.topic<string, Order>("orders", { partitions: 3, serde: { key: "utf8", value: "json" } });
    const orders: Order[] = [
      { id: 1, items: ["tea"] },
      { id: 2, items: [], note: "é 🍵" },
    ];
    const placed = await topic.append(orders.map((o) => ({ key: `c-${o.id}`, value: o })));
    const got = await collect(topic.records());
    expect(got.map((r) => [r.key, r.value]).sort()).toEqual(orders.map((o) => [`c-${o.id}`, o]).sort());
    // The partition log holds plain bytes: what a Kafka consumer with StringDeserializer reads.
    const raw = await topic.partition(placed[1]!.partition).read(placed[1]!.offset, { maxRecords: 1 });
    expect(decoder.decode(raw[0]!.key!)).toBe("c-2");
    expect(decoder.decode(raw[0]!.value!)).toBe(JSON.stringify(orders[1]));
    await dir.close();
  });

  it("null keys and values stay null both ways; the serializer never sees them", async () => {
    const seen: unknown[] = [];
    const counting: Serde<number> = {
      serialize: (n) => {
        seen.push(n);
        return String(n);
      },
      deserialize: (b) => {
        seen.push(b);
        return Number(decoder.decode(b));
      },
    };
    const dir = await LogDir.open(new SimStorage({ seed: 1 }));
    const log = typedLog<Uint8Array, number>(await dir.log("n-0"), { value: counting });
    await log.append([{ value: null }, { key: null, value: 7 }, { key: "k", value: null }]);
    expect(seen).toEqual([7]);
    const back = await log.read(0);
    expect(back.map((r) => [r.key === null ? null : decoder.decode(r.key), r.value])).toEqual([
      [null, null],
      [null, 7],
      ["k", null],
    ]);
    expect(seen.length).toBe(2); // one deserialize, for the one value that was not null
    await dir.close();
  });

  it("bytes stay the default: a topic or typed log without serde reads Uint8Arrays", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 1 }));
    const topic = await dir.topic("raw", { partitions: 2 });
    await topic.append([{ key: "k", value: new Uint8Array([1, 2, 3]) }]);
    const [r] = await collect(topic.records());
    expect(r!.value).toBeInstanceOf(Uint8Array);
    expect([...r!.value!]).toEqual([1, 2, 3]);
    await dir.close();
  });

  it("typedLog: the Log underneath is shared and stays bytes; records() and read() deserialize", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 1 }));
    const raw = await dir.log("orders-0");
    const orders = typedLog<string, Order>(raw, { key: "utf8", value: "json" });
    expect(orders.log).toBe(raw);
    expect(await orders.append([{ key: "a", value: { id: 1, items: ["x"] } }])).toEqual({
      baseOffset: 0,
      lastOffset: 0,
    });
    expect((await collect(orders.records()))[0]).toMatchObject({ offset: 0, key: "a", value: { id: 1, items: ["x"] } });
    expect((await raw.read(0))[0]!.value).toBeInstanceOf(Uint8Array);
    await dir.close();
  });
});

describe("serializers: failures", () => {
  it("a value the deserializer rejects is PAGELOG_SERIALIZATION naming the partition and offset, never skipped", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 1 }));
    const topic = await dir.topic<string, Order>("orders", { partitions: 2, serde: { key: "utf8", value: "json" } });
    await topic.append([{ key: "a", value: { id: 1, items: [] }, partition: 1 }]);
    // Another producer wrote bytes that are not JSON to partition 1, between two good records.
    await topic.partition(1).append([{ key: "b", value: "{not json" }]);
    await topic.append([{ key: "c", value: { id: 3, items: [] }, partition: 1 }]);
    const seen: Array<string | null> = [];
    const err = await expectCode(async () => {
      for await (const r of topic.records()) seen.push(r.key);
    }, ErrorCode.SERIALIZATION);
    expect(seen).toEqual(["a"]); // stopped at the bad record: "c" was not handed out past it
    expect(err.message).toContain("orders-1 offset 1");
    expect(err.message).toContain("value");
    expect(err.path).toBe("orders-1");
    expect(err.cause).toBeInstanceOf(SyntaxError);
    // The same through a typed log's read and records().
    const view = typedLog<string, Order>(topic.partition(1), { key: "utf8", value: "json" });
    await expectCode(() => view.read(1), ErrorCode.SERIALIZATION);
    await expectCode(() => collect(view.records({ from: 1 })), ErrorCode.SERIALIZATION);
    expect((await view.read(2))[0]!.value).toEqual({ id: 3, items: [] });
    await dir.close();
  });

  it("a key that is not UTF-8 under 'utf8' is PAGELOG_SERIALIZATION, never a string of U+FFFD", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 1 }));
    const log = await dir.log("t-0");
    await log.append([{ key: new Uint8Array([0xff, 0xfe]), value: "v" }]);
    const err = await expectCode(
      () => typedLog<string, string>(log, { key: "utf8", value: "utf8" }).read(0),
      ErrorCode.SERIALIZATION,
    );
    expect(err.message).toContain("t-0 offset 0: its key");
    await dir.close();
  });

  it("a custom deserializer that throws is PAGELOG_SERIALIZATION with its error as the cause", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 1 }));
    const picky: Serde<string> = {
      serialize: (s) => s,
      deserialize: (b) => {
        if (b.length > 3) throw new RangeError("too long");
        return decoder.decode(b);
      },
    };
    const topic = await dir.topic<Uint8Array, string>("t", { partitions: 1, serde: { value: picky } });
    await topic.append([{ value: "ok" }, { value: "toolong" }]);
    const err = await expectCode(() => collect(topic.records()), ErrorCode.SERIALIZATION);
    expect((err.cause as Error).message).toBe("too long");
    expect(err.message).toContain("t-0 offset 1");
    await dir.close();
  });

  it("a serializer that fails appends nothing: PAGELOG_SERIALIZATION, or a TypeError for the wrong type", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 1 }));
    const topic = await dir.topic<string, unknown>("t", { partitions: 2, serde: { key: "utf8", value: "json" } });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const value of [cyclic, 10n, undefined as unknown, () => 1]) {
      const err = await topic
        .append([
          { key: "a", value: 1 },
          { key: "b", value },
        ])
        .catch((e: unknown) => e);
      if (value === undefined) expect(err).toBeInstanceOf(TypeError);
      else {
        expect(err).toBeInstanceOf(PagelogError);
        expect((err as PagelogError).code).toBe(ErrorCode.SERIALIZATION);
        expect((err as PagelogError).message).toContain("records[1].value");
      }
    }
    await expect(topic.append([{ key: 5 as unknown as string, value: 1 }])).rejects.toThrow(/records\[0\]\.key/);
    const bad: Serde<string> = { serialize: () => 42 as unknown as string, deserialize: () => "" };
    const odd = await dir.topic<Uint8Array, string>("u", { serde: { value: bad } });
    await expectCode(() => odd.append([{ value: "x" }]), ErrorCode.SERIALIZATION);
    expect([0, 1].map((p) => topic.partition(p).endOffset)).toEqual([0, 0]);
    expect(odd.partition(0).endOffset).toBe(0);
    await dir.close();
  });

  it("a serde that is not one is a TypeError naming it", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 1 }));
    const log = await dir.log("t-0");
    expect(() => typedLog(log, { key: "text" as "bytes" })).toThrow(/serde\.key/);
    expect(() => typedLog(log, { value: { serialize: () => "" } as unknown as Serde<string> } as never)).toThrow(
      /serde\.value/,
    );
    expect(() => typedLog(log, { keys: "utf8" } as never)).toThrow(/keys/);
    expect(() => typedLog({} as never, {})).toThrow(TypeError);
    await dir.close();
  });
});
