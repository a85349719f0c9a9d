/**
 * Kafka's default partitioner: murmur2 against the Java client's own vectors (Kafka's
 * UtilsTest.testMurmur2) and against kafkajs's DefaultPartitioner (its Java-compatible one; the
 * LegacyPartitioner of kafkajs 1.x hashes differently) for thousands of random keys and partition
 * counts; then the sticky rule for keyless records. Seeded: a failure prints its replay command.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { murmur2, partitionForKey } from "../../../../src/log/topic/murmur2.js";
import { StickyPartitioner } from "../../../../src/log/topic/sticky-partitioner.js";
import { rng } from "../../../support/xorshift.js";
import { testSeed } from "../../../support/seed.js";

type KafkajsPartitioner = (args: {
  topic: string;
  partitionMetadata: Array<{ partitionId: number; leader: number }>;
  message: { key: Buffer | string | null; value: string; partition?: number };
}) => number;
const require = createRequire(import.meta.url);
const kafkajs = require("kafkajs") as { Partitioners: Record<string, () => KafkajsPartitioner> };

const encoder = new TextEncoder();

describe("murmur2: Kafka's Utils.murmur2", () => {
  it("gives the Java client's values for its own test vectors (UtilsTest.testMurmur2)", () => {
    const vectors: Array<[string, number]> = [
      ["21", -973932308],
      ["foobar", -790332482],
      ["a-little-bit-long-string", -985981536],
      ["a-little-bit-longer-string", -1486304829],
      ["lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971],
      ["abc", 479470107],
    ];
    for (const [key, hash] of vectors) expect(murmur2(encoder.encode(key)), key).toBe(hash);
  });

  it("a negative hash is made positive by clearing its sign bit, as Kafka's toPositive (not Math.abs)", () => {
    // murmur2("21") = -973932308: cleared, 1173551340 (% 1000 = 340); Math.abs would give 308.
    expect(partitionForKey(encoder.encode("21"), 1000)).toBe(340);
    expect(partitionForKey(encoder.encode("21"), 2 ** 31 - 1)).toBe(1173551340);
  });

  it("puts thousands of random keys where kafkajs's DefaultPartitioner does, for any partition count", () => {
    const draw = rng(testSeed()); // printed with its replay command if the test fails
    const partitioner = kafkajs.Partitioners.DefaultPartitioner!();
    for (let i = 0; i < 5000; i++) {
      const length = draw(4) === 0 ? draw(200) : draw(24); // every tail length, short and long keys
      const key = Buffer.from(Array.from({ length }, () => draw(256)));
      const partitions = 1 + draw(i % 2 === 0 ? 16 : 1000);
      const partitionMetadata = Array.from({ length: partitions }, (_, p) => ({ partitionId: p, leader: 0 }));
      const theirs = partitioner({ topic: "orders", partitionMetadata, message: { key, value: "v" } });
      expect(
        partitionForKey(new Uint8Array(key), partitions),
        `key ${key.toString("hex")} of ${partitions} partitions`,
      ).toBe(theirs);
    }
  });

  it("kafkajs's LegacyPartitioner is not the Java client's: it disagrees on some keys", () => {
    const legacy = kafkajs.Partitioners.LegacyPartitioner!();
    const draw = rng(testSeed());
    const partitionMetadata = Array.from({ length: 1000 }, (_, p) => ({ partitionId: p, leader: 0 }));
    let differ = 0;
    for (let i = 0; i < 200; i++) {
      const key = Buffer.from(Array.from({ length: 1 + draw(30) }, () => draw(256)));
      const theirs = legacy({ topic: "t", partitionMetadata, message: { key, value: "v" } });
      if (theirs !== partitionForKey(new Uint8Array(key), 1000)) differ++;
    }
    expect(differ).toBeGreaterThan(0);
  });
});

describe("the sticky rule for keyless records (the Java client's BuiltInPartitioner)", () => {
  it("keeps one partition until batch.size bytes went there, then picks again at random", () => {
    const picks = [5, 2, 2, 7];
    const sticky = new StickyPartitioner(
      () => 8,
      1000,
      () => picks.shift()!,
    );
    // 300-byte records: the 4th reaches 1000 bytes and ends the run; the 5th picks anew.
    expect([1, 2, 3, 4].map(() => sticky.next(300))).toEqual([5, 5, 5, 5]);
    expect([1, 2, 3, 4].map(() => sticky.next(300))).toEqual([2, 2, 2, 2]);
    // A random pick may be the same partition again, as in Kafka.
    expect(sticky.next(1000)).toBe(2);
    expect(sticky.next(1)).toBe(7);
  });

  it("spreads keyless records over every partition in the long run", () => {
    const draw = rng(testSeed());
    const sticky = new StickyPartitioner(
      () => 4,
      16_384,
      () => draw(0x7fffffff),
    );
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 20_000; i++) counts[sticky.next(100)]!++;
    for (const c of counts) expect(c).toBeGreaterThan(2000);
  });

  it("a topic that grew keeps its sticky partition; a partition count that shrank under it picks anew", () => {
    let count = 4;
    const sticky = new StickyPartitioner(
      () => count,
      1000,
      () => 3,
    );
    expect(sticky.next(10)).toBe(3);
    count = 8;
    expect(sticky.next(10)).toBe(3);
    count = 2;
    expect(sticky.next(10)).toBe(1);
  });
});
