/**
 * The records' types follow the serializers (checked by tsc: `npm test` type-checks test/): a
 * topic or typed log of `<string, Order>` takes and gives strings and Orders, null included;
 * bytes stay the default; a built-in name that cannot give the declared type does not compile.
 */
import { describe, expectTypeOf, it } from "vitest";
import type { LogDir } from "../../../../src/log/log-dir.js";
import type { Log } from "../../../../src/log/log.js";
import type { Topic, TopicRecord, TopicRecordInput } from "../../../../src/log/topic/topic.js";
import { type TypedLog, typedLog } from "../../../../src/log/topic/typed-log.js";
import type { Serde } from "../../../../src/log/topic/serde.js";

interface Order {
  id: number;
}

describe("typed records", () => {
  it("a topic of <string, Order> takes and yields strings and Orders (or null)", () => {
    type Orders = Topic<string, Order>;
    expectTypeOf<Parameters<Orders["append"]>[0][number]>().toEqualTypeOf<TopicRecordInput<string, Order>>();
    expectTypeOf<TopicRecordInput<string, Order>["key"]>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<TopicRecordInput<string, Order>["value"]>().toEqualTypeOf<Order | null>();
    type Out = ReturnType<Orders["records"]> extends AsyncGenerator<infer R, void, undefined> ? R : never;
    expectTypeOf<Out>().toEqualTypeOf<TopicRecord<string, Order>>();
    expectTypeOf<Out["key"]>().toEqualTypeOf<string | null>();
    expectTypeOf<Out["value"]>().toEqualTypeOf<Order | null>();
    expectTypeOf<Out["partition"]>().toEqualTypeOf<number>();
    expectTypeOf<Out["offset"]>().toEqualTypeOf<number>();
  });

  it("bytes by default: Uint8Array out, Uint8Array or string in", () => {
    type Out = ReturnType<Topic["records"]> extends AsyncGenerator<infer R, void, undefined> ? R : never;
    expectTypeOf<Out["value"]>().toEqualTypeOf<Uint8Array | null>();
    expectTypeOf<TopicRecordInput["value"]>().toEqualTypeOf<Uint8Array | string | null>();
  });

  it("the serde must fit the declared types; a custom pair types its field itself", async () => {
    const dir = undefined as unknown as LogDir;
    const log = undefined as unknown as Log;
    const check = async () => {
      await dir.topic<string, Order>("o", { serde: { key: "utf8", value: "json" } });
      // @ts-expect-error a "utf8" value cannot be read back as an Order
      await dir.topic<string, Order>("o", { serde: { value: "utf8" } });
      // @ts-expect-error "json" cannot be read back as bytes
      await dir.topic("o", { serde: { value: "json" } });
      const counter: Serde<number> = { serialize: String, deserialize: (b) => b.length };
      expectTypeOf(typedLog(log, { value: counter })).toEqualTypeOf<TypedLog<Uint8Array, number>>();
      const orders = typedLog<string, Order>(log, { key: "utf8", value: "json" });
      // @ts-expect-error a number is not an Order
      await orders.append([{ key: "a", value: 5 }]);
      expectTypeOf((await orders.read(0))[0]!.value).toEqualTypeOf<Order | null>();
    };
    expectTypeOf(check).toBeFunction();
  });
});
