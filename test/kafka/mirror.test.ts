// Issue 35: `mirror()` (pagelog/kafka) forwards a live pagelog partition or topic to a Kafka topic
// on the tier's broker: every record with its key, value, headers and timestamp, in order, once;
// a second mirror goes on where the first stopped; durable holds back what a power cut can take;
// a start that cannot work is one PagelogError, at once.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/kafka.mjs";
import { ErrorCode, LogDir } from "../../src/index.js";
import { mirror } from "../../src/kafka.js";
import { createTopic, freshTopic, groupOffsets, readTopic, until } from "./support/target.js";
import { kafkaTier } from "./support/tier.js";

const tier = kafkaTier();
const scratch = mkdtempSync(join(tmpdir(), "pagelog-mirror-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const enc = new TextEncoder();
const bytes = (s: string) => enc.encode(s);

describe.skipIf(tier === undefined)("pagelog/kafka mirror()", () => {
  const bootstrap = tier?.bootstrap ?? "";

  it("forwards every record (key, value, headers, timestamp) in order, once, and a second mirror goes on where the first stopped", async () => {
    const dir = await LogDir.open(mkdtempSync(join(scratch, "a-")));
    const log = await dir.log("orders-0");
    const topic = freshTopic("order");
    await createTopic(bootstrap, topic);
    // Records of every shape: a null key, a tombstone, repeated header keys, a null header value.
    await log.append([
      {
        key: bytes("k0"),
        value: bytes("v0"),
        timestamp: 1_700_000_000_000,
        headers: [{ key: "h", value: bytes("1") }],
      },
      { key: null, value: bytes("v1"), timestamp: 1_700_000_000_001 },
      { key: bytes("k2"), value: null, timestamp: 1_700_000_000_002 },
    ]);
    await log.append([
      {
        key: bytes("k3"),
        value: bytes("v3"),
        timestamp: 1_700_000_000_003,
        headers: [
          { key: "a", value: bytes("x") },
          { key: "a", value: bytes("y") },
          { key: "b", value: bytes("") },
        ],
      },
    ]);
    await log.flush();
    const first = await mirror({ dir, source: "orders-0", brokers: [bootstrap], topic });
    await until("the first mirror forwarded 4 records", () => first.progress().partitions[0]!.next === 4);
    const stopped = await first.stop();
    expect(stopped.records).toBe(4);

    for (let i = 4; i < 30; i++)
      await log.append([{ key: bytes(`k${i}`), value: bytes(`v${i}`), timestamp: 1_700_000_000_000 + i }]);
    await log.flush();
    const second = await mirror({ dir, source: "orders-0", brokers: [bootstrap], topic });
    expect(second.progress().partitions[0]!.next).toBe(4); // resumed from the target's checkpoint
    await until("the second mirror forwarded the rest", () => second.progress().partitions[0]!.next === 30);
    await second.stop();

    const target = await readTopic(bootstrap, topic, 30);
    expect(target.map((r) => r.value)).toEqual([
      "v0",
      "v1",
      null,
      "v3",
      ...Array.from({ length: 26 }, (_, i) => `v${i + 4}`),
    ]);
    expect(target.map((r) => r.key).slice(0, 4)).toEqual(["k0", null, "k2", "k3"]);
    expect(target.map((r) => r.timestamp)).toEqual(Array.from({ length: 30 }, (_, i) => 1_700_000_000_000 + i));
    expect(target[0]!.headers).toEqual([["h", "1"]]);
    expect(target[3]!.headers).toEqual([
      ["a", "x"],
      ["a", "y"],
      ["b", ""],
    ]);
    expect((await groupOffsets(bootstrap, `pagelog-mirror.${topic}`, topic)).get(0)).toBe(30);
    await dir.close();
  });

  it("with durable (the default) forwards a record only once a flush made it durable; durable: false at once", async () => {
    const dir = await LogDir.open(mkdtempSync(join(scratch, "d-")));
    const log = await dir.log("jobs-0");
    const durableTopic = freshTopic("durable");
    const eagerTopic = freshTopic("eager");
    await createTopic(bootstrap, durableTopic);
    await createTopic(bootstrap, eagerTopic);
    const durable = await mirror({ dir, source: "jobs-0", brokers: [bootstrap], topic: durableTopic });
    const eager = await mirror({ dir, source: "jobs-0", brokers: [bootstrap], topic: eagerTopic, durable: false });
    await log.append([{ value: bytes("a") }, { value: bytes("b") }]);
    await until("the eager mirror forwarded the appended records", () => eager.progress().partitions[0]!.next === 2);
    expect(durable.progress().partitions[0]!.next).toBe(0);
    expect(log.recoveryPoint).toBe(0);
    await log.flush();
    await until("the durable mirror forwarded the flushed records", () => durable.progress().partitions[0]!.next === 2);
    await Promise.all([durable.stop(), eager.stop()]);
    await dir.close();
  });

  it("mirrors every partition of a topic into the same partition of the target", async () => {
    const dir = await LogDir.open(mkdtempSync(join(scratch, "t-")));
    const source = await dir.topic("clicks", { partitions: 3 });
    const topic = freshTopic("clicks");
    await createTopic(bootstrap, topic, 3);
    for (let i = 0; i < 30; i++) await source.append([{ partition: i % 3, value: bytes(`p${i % 3}-${i}`) }]);
    for (let p = 0; p < 3; p++) await source.partition(p).flush();
    const running = await mirror({ dir, source: "clicks", brokers: [bootstrap], topic });
    await until(
      "every partition forwarded",
      () => running.progress().lagRecords === 0 && running.progress().records === 30,
    );
    await running.stop();
    const target = await readTopic(bootstrap, topic, 30);
    for (let p = 0; p < 3; p++)
      expect(target.filter((r) => r.partition === p).map((r) => r.value)).toEqual(
        Array.from({ length: 10 }, (_, i) => `p${p}-${i * 3 + p}`),
      );
    await dir.close();
  });

  it("carries a pagelog consumer's position to the Kafka group of its name, at the target offset of the same record", async () => {
    const dir = await LogDir.open(mkdtempSync(join(scratch, "c-")));
    const log = await dir.log("bills-0");
    const topic = freshTopic("bills");
    await createTopic(bootstrap, topic);
    const billing = dir.consumer("billing");
    const audit = dir.consumer("audit");
    // Three transactions' worth (three flushes): target offsets drift from source offsets by the
    // commit markers between them.
    for (let t = 0; t < 3; t++) {
      await log.append(Array.from({ length: 5 }, (_, i) => ({ value: bytes(`b${t * 5 + i}`) })));
      await log.flush();
    }
    const running = await mirror({
      dir,
      source: "bills-0",
      brokers: [bootstrap],
      topic,
      consumers: ["billing", "audit"],
      maxTransactionBytes: 1,
    });
    await until("mirrored", () => running.progress().partitions[0]!.next === 15);
    // billing read up to b6 (its next is 7, inside the second transaction); audit everything.
    await billing.commit("bills-0", 7);
    await audit.commit("bills-0", 15);
    const carried = async () => {
      const [b, a] = [await groupOffsets(bootstrap, "billing", topic), await groupOffsets(bootstrap, "audit", topic)];
      return [b.get(0), a.get(0)];
    };
    await until("both positions carried", async () => (await carried()).every((o) => o !== undefined && o >= 0));
    const [billingAt, auditAt] = await carried();
    const target = await readTopic(bootstrap, topic, 15);
    // The group's offset is the target offset right after b6: a consumer there reads b7 next.
    const b6 = target.find((r) => r.value === "b6")!.offset;
    const b7 = target.find((r) => r.value === "b7")!.offset;
    expect(billingAt).toBeGreaterThan(b6);
    expect(billingAt).toBeLessThanOrEqual(b7);
    expect(target.filter((r) => r.offset >= billingAt!).map((r) => r.value)[0]).toBe("b7");
    expect(auditAt).toBeGreaterThan(target.at(-1)!.offset); // caught up: past the last record
    // A position never goes backwards on the Kafka side, and one past what is mirrored waits.
    await log.append([{ value: bytes("b15") }]);
    await log.flush();
    await billing.commit("bills-0", 16);
    await until("b15 mirrored", () => running.progress().partitions[0]!.next === 16);
    await until("billing carried past b15", async () => ((await carried())[0] ?? 0) > billingAt!);
    await running.stop();
    await dir.close();
  });

  it("a start that cannot work is one PagelogError at once: no broker, no topic, too few partitions, no source, another source's checkpoint", async () => {
    const dir = await LogDir.open(mkdtempSync(join(scratch, "e-")));
    const log = await dir.log("orders-1");
    await log.append([{ value: bytes("x") }]);
    await log.flush();
    const topic = freshTopic("small");
    await createTopic(bootstrap, topic, 1);
    const nobody = `127.0.0.1:${await freePort()}`;
    const started = performance.now();
    await expect(mirror({ dir, source: "orders-1", brokers: [nobody], topic })).rejects.toMatchObject({
      code: ErrorCode.KAFKA,
      message: expect.stringMatching(/^no Kafka broker answered at 127\.0\.0\.1:\d+/),
    });
    expect(performance.now() - started).toBeLessThan(30_000);
    await expect(
      mirror({ dir, source: "orders-1", brokers: [bootstrap], topic: `${topic}-missing` }),
    ).rejects.toMatchObject({
      code: ErrorCode.KAFKA,
      message: expect.stringContaining(`has no topic ${topic}-missing`),
    });
    // orders-1 goes to partition 1: a one-partition topic cannot take it.
    await expect(mirror({ dir, source: "orders-1", brokers: [bootstrap], topic })).rejects.toMatchObject({
      code: ErrorCode.KAFKA,
      message: expect.stringContaining("needs 2"),
    });
    await expect(mirror({ dir, source: "nothing-0", brokers: [bootstrap], topic })).rejects.toMatchObject({
      code: ErrorCode.NOT_FOUND,
    });
    // Two sources into one target partition: the second sees the first's checkpoint and refuses.
    const shared = freshTopic("shared");
    await createTopic(bootstrap, shared, 2);
    const other = await dir.log("refunds-1");
    await other.append([{ value: bytes("r") }]);
    await other.flush();
    const one = await mirror({ dir, source: "orders-1", brokers: [bootstrap], topic: shared });
    await until("the first source is mirrored", () => one.progress().partitions[0]!.next === 1);
    await one.stop();
    await expect(mirror({ dir, source: "refunds-1", brokers: [bootstrap], topic: shared })).rejects.toMatchObject({
      code: ErrorCode.MIRROR_DIVERGED,
      message: expect.stringContaining("another source (pagelog:orders-1)"),
    });
    await dir.close();
  });

  it("a target ahead of the source (the source lost mirrored records) is PAGELOG_MIRROR_DIVERGED, nothing produced", async () => {
    const path = mkdtempSync(join(scratch, "ahead-"));
    const dir = await LogDir.open(path);
    const log = await dir.log("pay-0");
    await log.append([{ value: bytes("1") }, { value: bytes("2") }, { value: bytes("3") }]);
    await log.flush();
    const topic = freshTopic("ahead");
    await createTopic(bootstrap, topic);
    const running = await mirror({ dir, source: "pay-0", brokers: [bootstrap], topic });
    await until("mirrored", () => running.progress().partitions[0]!.next === 3);
    await running.stop();
    await log.truncateTo(1); // what a power cut does to records that were never durable, here by hand
    await expect(mirror({ dir, source: "pay-0", brokers: [bootstrap], topic })).rejects.toMatchObject({
      code: ErrorCode.MIRROR_DIVERGED,
      message: expect.stringContaining("ends at 1"),
    });
    // And a record the client cannot send as it is (a header without a value) stops the mirror
    // with an error naming it, rather than sending something else.
    const headerTopic = freshTopic("nullheader");
    await createTopic(bootstrap, headerTopic);
    const odd = await dir.log("odd-0");
    await odd.append([{ value: bytes("v"), headers: [{ key: "n", value: null }] }]);
    await odd.flush();
    const stopped = await mirror({ dir, source: "odd-0", brokers: [bootstrap], topic: headerTopic });
    await expect(stopped.done).rejects.toMatchObject({
      code: ErrorCode.KAFKA,
      message: expect.stringContaining('record 0 has a header "n" without a value'),
    });
    await dir.close();
  });
});
