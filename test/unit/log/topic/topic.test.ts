/**
 * Topics (`dir.topic(name, { partitions })`): routing by key (Kafka's partitioner), by explicit
 * partition and by the sticky rule; the partitions staying logs; records() merging them in each
 * partition's order; the recorded partition count (added, never removed; surviving power cuts);
 * read-only opens; a topic consumer's positions per partition.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../../src/errors.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import { partitionForKey } from "../../../../src/log/topic/murmur2.js";
import { keepNothing, randomChooser, SimStorage } from "../../../../src/storage/sim-storage.js";
import { expectCode, readText, writeFile } from "../helpers.js";
import { testSeed } from "../../../support/seed.js";
import { rng } from "../../../support/xorshift.js";
import type { TopicRecord, TopicRecordMetadata } from "../../../../src/log/topic/topic.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const text = (b: Uint8Array | null) => (b === null ? null : decoder.decode(b));

async function collect<T>(it: AsyncIterable<T>, limit = Infinity): Promise<T[]> {
  const out: T[] = [];
  for await (const r of it) {
    out.push(r);
    if (out.length >= limit) break;
  }
  return out;
}

describe("topics: routing", () => {
  it("a keyed record goes where Kafka's partitioner puts its key; the result gives each record's partition and offset", async () => {
    const draw = rng(testSeed());
    const dir = await LogDir.open(new SimStorage({ seed: 1 }));
    const partitions = 2 + draw(9);
    const topic = await dir.topic("orders", { partitions });
    expect(topic.partitions).toBe(partitions);
    const keys = Array.from({ length: 200 }, (_, i) => `customer-${draw(1_000_000)}-${i}`);
    const placed = await topic.append(keys.map((key) => ({ key, value: `v-${key}` })));
    const next = new Array<number>(partitions).fill(0);
    keys.forEach((key, i) => {
      const partition = partitionForKey(encoder.encode(key), partitions);
      expect(placed[i]).toEqual({ partition, offset: next[partition]!++ });
    });
    // Each partition log holds its keys, in call order.
    for (let p = 0; p < partitions; p++) {
      const records = await topic.partition(p).read(0, { maxRecords: 1000 });
      expect(records.map((r) => text(r.key))).toEqual(keys.filter((_, i) => placed[i]!.partition === p));
    }
    // Bytes keys hash their bytes: the same partition as the same key as a string.
    const [asBytes] = await topic.append([{ key: encoder.encode(keys[0]), value: "x" }]);
    expect(asBytes!.partition).toBe(placed[0]!.partition);
    await dir.close();
  });

  it("a record that names its partition goes there, whatever its key; a bad partition appends nothing", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 1 }));
    const topic = await dir.topic("orders", { partitions: 4 });
    const placed = await topic.append([
      { key: "a", value: "1", partition: 3 },
      { value: "2", partition: 0 },
      { key: "a", value: "3", partition: 3 },
    ]);
    expect(placed).toEqual([
      { partition: 3, offset: 0 },
      { partition: 0, offset: 0 },
      { partition: 3, offset: 1 },
    ]);
    for (const bad of [4, -1, 1.5, "2"]) {
      await expect(topic.append([{ value: "ok" }, { value: "x", partition: bad as number }])).rejects.toThrow(
        /records\[1\]\.partition/,
      );
    }
    // A bad record among good ones appends none of them (the log's own checks, before routing).
    await expect(topic.append([{ key: "k", value: "ok" }, { value: 5 as unknown as string }])).rejects.toThrow(
      TypeError,
    );
    const ends = [0, 1, 2, 3].map((p) => topic.partition(p).endOffset);
    expect(ends).toEqual([1, 0, 0, 2]);
    await dir.close();
  });

  it("keyless records stick to one partition until batch.size bytes went there", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 1 }));
    const topic = await dir.topic("events", { partitions: 8, stickyBatchBytes: 1000 });
    const value = "x".repeat(100);
    const placed = await topic.append(Array.from({ length: 10 }, () => ({ value })));
    // 10 × 100 bytes: the 10th reaches 1000, so all ten went to one partition.
    expect(new Set(placed.map((p) => p.partition)).size).toBe(1);
    const counts = new Array<number>(8).fill(0);
    for (let i = 0; i < 200; i++) for (const { partition } of await topic.append([{ value }])) counts[partition]!++;
    // Runs of 10 records each, spread at random: 20 runs over 8 partitions, never one partition only.
    expect(counts.every((c) => c % 10 === 0)).toBe(true);
    expect(counts.filter((c) => c > 0).length).toBeGreaterThan(1);
    // Empty records count too (as Kafka counts the bytes a record takes in its batch): never stuck.
    const tiny = await dir.topic("tiny", { partitions: 8, stickyBatchBytes: 70 });
    const empties = await tiny.append(Array.from({ length: 200 }, () => ({ value: "" })));
    expect(new Set(empties.map((p) => p.partition)).size).toBeGreaterThan(1);
    await dir.close();
  });

  it("the partitions stay logs: dir.log('orders-2') is topic.partition(2), and its appends are the topic's records", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 1 }));
    const topic = await dir.topic("orders", { partitions: 3 });
    const log = await dir.log("orders-2");
    expect(topic.partition(2)).toBe(log);
    expect(await dir.logs()).toEqual(["orders-0", "orders-1", "orders-2"]);
    await log.append([{ key: "direct", value: "d" }]);
    const records = await collect(topic.records());
    expect(records.map((r) => [r.partition, r.offset, text(r.key)])).toEqual([[2, 0, "direct"]]);
    expect(() => topic.partition(3)).toThrow(RangeError);
    await dir.close();
  });

  it("bad names and counts are refused before anything is created", async () => {
    const sim = new SimStorage({ seed: 1 });
    const dir = await LogDir.open(sim);
    await expect(dir.topic("a/b", { partitions: 2 })).rejects.toThrow(TypeError);
    await expect(dir.topic("..")).rejects.toThrow(TypeError);
    await expect(dir.topic("x".repeat(250))).rejects.toThrow(TypeError);
    for (const bad of [0, -1, 2.5, 10_001, "8"])
      await expect(dir.topic("orders", { partitions: bad as number })).rejects.toThrow(/partitions/);
    await expect(dir.topic("orders", { partitions: 2, serde: { value: "yaml" as never } })).rejects.toThrow(
      /serde\.value/,
    );
    await expect(dir.topic("orders", { partition: 2 } as never)).rejects.toThrow(/partition/);
    expect(await dir.logs()).toEqual([]);
    await dir.close();
    await expectCode(() => dir.topic("orders"), ErrorCode.CLOSED);
  });
});

describe("topics: records() merges the partitions", () => {
  it("yields every record once, each partition's in offset order, each with its partition", async () => {
    const draw = rng(testSeed());
    const dir = await LogDir.open(new SimStorage({ seed: 1 }), { log: { segmentBytes: 4096 } });
    const topic = await dir.topic("orders", { partitions: 5 });
    const sent: Array<{ partition: number; offset: number; key: string }> = [];
    for (let call = 0; call < 40; call++) {
      const records = Array.from({ length: 1 + draw(20) }, () => ({ key: `k${draw(50)}`, value: `v${call}` }));
      const placed = await topic.append(records);
      placed.forEach((p, i) => sent.push({ ...p, key: records[i]!.key }));
    }
    const got = await collect(topic.records());
    expect(got.length).toBe(sent.length);
    for (let p = 0; p < 5; p++) {
      const mine = got.filter((r) => r.partition === p);
      expect(mine.map((r) => r.offset)).toEqual(mine.map((_, i) => i));
      expect(mine.map((r) => text(r.key))).toEqual(sent.filter((s) => s.partition === p).map((s) => s.key));
    }
    // Partitions interleave (round robin among the ready ones), not one partition after another.
    const switches = got.filter((r, i) => i > 0 && r.partition !== got[i - 1]!.partition).length;
    expect(switches).toBeGreaterThan(got.length / 4);
    await dir.close();
  });

  it("from: per partition offsets (undefined or absent: the partition's start); a bad one is a TypeError", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 1 }));
    const topic = await dir.topic("orders", { partitions: 3 });
    for (let p = 0; p < 3; p++)
      await topic.append(Array.from({ length: 4 }, (_, i) => ({ value: `${p}:${i}`, partition: p })));
    const got = await collect(topic.records({ from: [2, undefined] }));
    const values = got.map((r) => text(r.value)).sort();
    expect(values).toEqual(["0:2", "0:3", "1:0", "1:1", "1:2", "1:3", "2:0", "2:1", "2:2", "2:3"]);
    await expect(collect(topic.records({ from: [0, 0, 0, 0] }))).rejects.toThrow(TypeError);
    await expect(collect(topic.records({ from: [-1] }))).rejects.toThrow(/from\[0\]/);
    await expectCode(() => collect(topic.records({ from: [9] })), ErrorCode.OFFSET_OUT_OF_RANGE);
    await dir.close();
  });

  it("follow: an append to any partition wakes it; a break or an abort ends every partition's wait", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 1 }));
    const topic = await dir.topic("orders", { partitions: 4 });
    const stop = new AbortController();
    const follower = topic.records({ follow: true, signal: stop.signal });
    const first = follower.next();
    await topic.append([{ value: "late", partition: 3 }]);
    const r = await first;
    expect(r.done).toBe(false);
    expect([(r.value as TopicRecord).partition, text((r.value as TopicRecord).value)]).toEqual([3, "late"]);
    const second = follower.next();
    await topic.append([{ value: "later", partition: 1 }]);
    expect((await second).value).toMatchObject({ partition: 1, offset: 0 });
    const third = follower.next();
    stop.abort(new Error("enough"));
    await expect(third).rejects.toThrow("enough");
    // A follower ended by break: the next one starts over, and close() does not wait on the first.
    const again = await collect(topic.records({ follow: true }), 2);
    expect(again.map((x) => x.partition).sort()).toEqual([1, 3]);
    await dir.close();
  });

  it("follow while a producer appends to random partitions: every record once, each partition in order", async () => {
    const draw = rng(testSeed());
    const dir = await LogDir.open(new SimStorage({ seed: 1 }), { log: { segmentBytes: 2048 } });
    const topic = await dir.topic("orders", { partitions: 1 + draw(6), stickyBatchBytes: 200 });
    const total = 600;
    const follower = collect(topic.records({ follow: true }), total);
    const sent: TopicRecordMetadata[] = [];
    while (sent.length < total) {
      const n = Math.min(total - sent.length, 1 + draw(30));
      const batch = Array.from({ length: n }, () =>
        draw(2) === 0 ? { value: "keyless" } : { key: `k${draw(40)}`, value: "keyed" },
      );
      sent.push(...(await topic.append(batch)));
      if (draw(3) === 0) await new Promise((r) => setTimeout(r, 0)); // let the follower catch up, sometimes
    }
    const got = await follower;
    for (let p = 0; p < topic.partitions; p++) {
      const mine = got.filter((r) => r.partition === p).map((r) => r.offset);
      expect(mine).toEqual(sent.filter((s) => s.partition === p).map((s) => s.offset));
    }
    await dir.close();
  });

  it("durable: only flushed records, on every partition", async () => {
    const dir = await LogDir.open(new SimStorage({ seed: 1 }));
    const topic = await dir.topic("orders", { partitions: 2 });
    await topic.append([
      { value: "a", partition: 0 },
      { value: "b", partition: 1 },
    ]);
    expect(await collect(topic.records({ durable: true }))).toEqual([]);
    await topic.flush();
    expect((await collect(topic.records({ durable: true }))).length).toBe(2);
    await dir.close();
  });
});

describe("topics: the recorded partition count", () => {
  it("a reopen takes the recorded count, refuses fewer (PAGELOG_PARTITION_COUNT), and adds partitions", async () => {
    let sim = new SimStorage({ seed: 1 });
    let dir = await LogDir.open(sim);
    await dir.topic("orders", { partitions: 8 });
    expect(await readText(sim, "topic-partitions")).toBe("0\n1\norders 8\n");
    await dir.close();

    dir = await LogDir.open(sim);
    expect((await dir.topic("orders")).partitions).toBe(8);
    for (const fewer of [1, 7]) {
      const err = await expectCode(() => dir.topic("orders", { partitions: fewer }), ErrorCode.PARTITION_COUNT);
      expect(err.message).toContain("8 partitions");
    }
    const grown = await dir.topic("orders", { partitions: 12 });
    expect(grown.partitions).toBe(12);
    await grown.append([{ value: "new", partition: 11 }]);
    await dir.topic("payments", { partitions: 2 });
    expect(await readText(sim, "topic-partitions")).toBe("0\n2\norders 12\npayments 2\n");
    // Nothing synced beyond what dir.topic made durable: the count is, before it resolves.
    sim = sim.crash(keepNothing);
    dir = await LogDir.open(sim);
    expect((await dir.topic("orders")).partitions).toBe(12);
    await expectCode(() => dir.topic("orders", { partitions: 8 }), ErrorCode.PARTITION_COUNT);
    await dir.close();
  });

  it("a power cut at any point of adding partitions leaves the old count or the new one, never a count without its partitions", async () => {
    const seed = testSeed();
    for (let afterOps = 0; afterOps < 200; afterOps++) {
      let sim = new SimStorage({ seed });
      let dir = await LogDir.open(sim);
      await dir.topic("orders", { partitions: 2 });
      sim.scheduleCrash({ afterOps });
      const grew = await dir.topic("orders", { partitions: 5 }).then(
        () => true,
        () => false,
      );
      sim = sim.crash(randomChooser(seed + afterOps));
      dir = await LogDir.open(sim);
      const topic = await dir.topic("orders");
      if (grew) expect(topic.partitions, `cut after ${afterOps} ops`).toBe(5);
      else expect([2, 5], `cut after ${afterOps} ops`).toContain(topic.partitions);
      expect((await dir.logs()).length).toBeGreaterThanOrEqual(topic.partitions);
      await dir.close();
      if (grew) break;
    }
  });

  it("a topic made of partition logs before it was recorded is taken up to its highest partition", async () => {
    const sim = new SimStorage({ seed: 1 });
    let dir = await LogDir.open(sim);
    await (await dir.log("legacy-0")).append([{ value: "a" }]);
    await dir.log("legacy-2");
    await dir.close();
    dir = await LogDir.open(sim);
    const topic = await dir.topic("legacy");
    expect(topic.partitions).toBe(3);
    expect(await dir.logs()).toEqual(["legacy-0", "legacy-1", "legacy-2"]);
    expect((await dir.topic("fresh")).partitions).toBe(1); // Kafka's num.partitions
    await dir.close();
  });

  it("a damaged topic-partitions file is PAGELOG_CORRUPT, never read as no topics", async () => {
    for (const content of [
      "0\n1\norders 8",
      "1\n1\norders 8\n",
      "0\n2\norders 8\n",
      "0\n1\norders -8\n",
      "0\n1\norders 8 9\n",
    ]) {
      const sim = new SimStorage({ seed: 1 });
      await writeFile(sim, "topic-partitions", 0, encoder.encode(content), { create: true, sync: true });
      await sim.syncDir("");
      const dir = await LogDir.open(sim);
      const err = await expectCode(() => dir.topic("orders", { partitions: 2 }), ErrorCode.CORRUPT);
      expect(err.path).toBe("topic-partitions");
      await dir.close();
    }
  });
});

describe("topics: read-only opens and consumers", () => {
  it("a read-only open reads a topic and follows it; it cannot add partitions or make a topic", async () => {
    const sim = new SimStorage({ seed: 1 });
    const writer = await LogDir.open(sim);
    const topic = await writer.topic("orders", { partitions: 3 });
    await topic.append([{ key: "k1", value: "a" }, { key: "k2", value: "b" }, { value: "c" }]);
    await topic.flush();
    const reader = await LogDir.open(sim, { readOnly: true });
    const seen = await reader.topic("orders");
    expect(seen.partitions).toBe(3);
    const records = await collect(seen.records());
    expect(records.map((r) => text(r.value)).sort()).toEqual(["a", "b", "c"]);
    await expectCode(() => reader.topic("orders", { partitions: 4 }), ErrorCode.READ_ONLY);
    await expectCode(() => reader.topic("nothing"), ErrorCode.NOT_FOUND);
    await expectCode(() => seen.append([{ value: "x" }]), ErrorCode.READ_ONLY);
    await reader.close();
    await writer.close();
  });

  it("a topic consumer commits per partition, durably, and resumes where it committed", async () => {
    let sim = new SimStorage({ seed: 1 });
    let dir = await LogDir.open(sim);
    let topic = await dir.topic("orders", { partitions: 3 });
    for (let p = 0; p < 3; p++)
      await topic.append(Array.from({ length: 5 }, (_, i) => ({ value: `${p}:${i}`, partition: p })));
    await topic.flush();
    const billing = topic.consumer("billing");
    expect(billing.positions()).toEqual([undefined, undefined, undefined]);
    for (const r of await collect(topic.records(), 7)) await billing.commit(r.partition, r.offset + 1);
    const committed = billing.positions();
    expect(committed.reduce((n: number, o) => n + (o ?? 0), 0)).toBe(7);
    // The directory's consumer holds the same positions, by partition log name.
    expect(dir.consumer("billing").committed("orders-1")).toBe(committed[1]);
    expect(billing.states().map((s) => s.partition)).toEqual(["orders-0", "orders-1", "orders-2"]);
    sim = sim.crash(keepNothing);
    dir = await LogDir.open(sim);
    topic = await dir.topic("orders");
    const resumed = topic.consumer("billing");
    expect(resumed.positions()).toEqual(committed);
    const rest = await collect(topic.records({ from: resumed.positions() }));
    expect(rest.length).toBe(15 - 7);
    await expect(resumed.commit(3, 0)).rejects.toThrow(RangeError);
    expect(() => resumed.committed(-1)).toThrow(RangeError);
    await dir.close();
  });
});
