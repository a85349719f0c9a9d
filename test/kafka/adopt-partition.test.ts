// A broker adopts a pagelog partition (issue 34, item 3; docs/moving-into-kafka.md): the broker
// creates the topics and stops; pagelog's closed partitions (.log, .index, .timeindex) replace
// their segment files (partition.metadata and leader-epoch-checkpoint stay); the broker starts
// again and serves them: Kafka's own consumer reads every record with the same offset, key, value, headers
// and timestamp, ListOffsets by timestamp (the broker's .timeindex lookups) and seeks to offsets in
// the middle land where pagelog says, and a record produced afterwards lands at pagelog's end
// offset. Once for a plain partition, once for a compacted one (offsets with gaps, empty batches).
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Kafka } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LogDir } from "../../src/node.js";
import type { Log } from "../../src/log/log.js";
import { runProbe, type Broker, type ProbeCall } from "../../scripts/kafka.mjs";
import { ownBroker } from "./support/broker.js";
import { rng } from "../support/xorshift.js";
import { fileSeed } from "../support/seed.js";
import { parseProbeRecords } from "./support/dump.js";
import { hex, recordsOf, type PlainRecord } from "./support/segments.js";
import { kafkaTier } from "./support/tier.js";

const tier = kafkaTier();
const { seed } = fileSeed(import.meta.url);
const scratch = mkdtempSync(join(tmpdir(), "pagelog-kafka-adopt-"));
const TOPICS = { plain: "adopted", compacted: "adopted-compacted" } as const;

interface Written {
  records: PlainRecord[];
  endOffset: number;
  /** pagelog's answer to offsetForTimestamp for each probed timestamp. */
  byTimestamp: Array<[timestamp: number, offset: number | null]>;
}

/** pagelog writes both partitions in `root`, closes them, and says what it reads back. */
async function writeWithPagelog(root: string): Promise<Record<keyof typeof TOPICS, Written>> {
  const next = rng(seed);
  const dir = await LogDir.open(root);
  const options = { segmentBytes: 2048, indexIntervalBytes: 128 };
  const plain = await dir.log(`${TOPICS.plain}-0`, options);
  const compacted = await dir.log(`${TOPICS.compacted}-0`, {
    ...options,
    cleanupPolicy: "compact",
    backgroundCleaning: false,
  });
  let t = 1_700_000_000_000;
  for (let i = 0; i < 120; i++) {
    const records = Array.from({ length: 1 + next(3) }, (_, r) => ({
      key: next(4) === 0 ? null : `k${i}-${r}`,
      value: next(5) === 0 ? null : `value-${i}-${r}-${"x".repeat(next(30))}`,
      headers: next(2) === 0 ? {} : { h: `x${i}`, empty: "" },
      timestamp: (t += 1 + next(1000)),
    }));
    await plain.append(records);
    await compacted.append(
      records.map((r) => ({ ...r, key: `key-${next(8)}`, value: next(6) === 0 ? null : r.value })),
    );
  }
  await compacted.flush();
  await compacted.compact();
  const written = async (log: Log): Promise<Written> => {
    const records = await recordsOf(log);
    const probes = [
      records[0]!,
      records[Math.floor(records.length / 3)]!,
      records[Math.floor((2 * records.length) / 3)]!,
      records.at(-1)!,
    ];
    const byTimestamp: Written["byTimestamp"] = [];
    for (const r of probes) byTimestamp.push([r.timestamp - 1, await log.offsetForTimestamp(r.timestamp - 1)]);
    return { records, endOffset: log.endOffset, byTimestamp };
  };
  const out = { plain: await written(plain), compacted: await written(compacted) };
  await dir.close();
  return out;
}

/** Replaces the broker's segment files of `partition` by pagelog's; the broker's other files stay. */
function adopt(brokerLogDir: string, pagelogRoot: string, partition: string): void {
  const to = join(brokerLogDir, partition);
  for (const f of readdirSync(to)) if (/\.(log|index|timeindex|snapshot)$/.test(f)) rmSync(join(to, f));
  for (const f of readdirSync(join(pagelogRoot, partition))) copyFileSync(join(pagelogRoot, partition, f), join(to, f));
}

/**
 * Kafka's own consumer (PagelogProbe "consume", one JVM for every call): each topic read whole, then
 * one record from each of `seeks` (the offset of the first record the broker serves from there).
 */
async function consumeAll(bootstrap: string, plans: Array<{ topic: string; seeks: number[] }>) {
  const calls: ProbeCall[] = plans.flatMap(({ topic, seeks }) => [
    ["consume", bootstrap, topic, "0", "1000000"],
    ...seeks.map((s): ProbeCall => ["consume", bootstrap, topic, String(s), "1"]),
  ]);
  const results = await runProbe({ classpath: tier!.classpath, probeDir: tier!.probeDir, workDir: scratch, calls });
  let i = 0;
  return plans.map(({ seeks }) => {
    const whole = results[i++]!;
    expect(whole.lines.filter((l) => l.startsWith("@@probe error"))).toEqual([]);
    const landed = seeks.map(() => parseProbeRecords(results[i++]!.lines)[0]?.offset ?? -1);
    return { records: parseProbeRecords(whole.lines), landed };
  });
}

describe.skipIf(tier === undefined)("a broker adopts a pagelog partition", () => {
  let broker: Broker | undefined;
  let kafka: Kafka;
  let written: Record<keyof typeof TOPICS, Written>;
  let producedAt: Record<keyof typeof TOPICS, number>;

  beforeAll(async () => {
    // The broker's cleaner off: it would clean the adopted log's uncleaned tail further (Kafka's
    // right, but then the consumer reads fewer records than pagelog, at a moment nobody chooses).
    ({ broker } = await ownBroker({
      dir: join(scratch, "broker"),
      extra: { "log.cleaner.enable": "false" },
      topics: [
        { topic: TOPICS.plain, numPartitions: 1, configEntries: [{ name: "retention.ms", value: "-1" }] },
        { topic: TOPICS.compacted, numPartitions: 1, configEntries: [{ name: "cleanup.policy", value: "compact" }] },
      ],
    }));
    await broker.stop({ graceful: true });
    const pagelogRoot = join(scratch, "pagelog");
    written = await writeWithPagelog(pagelogRoot);
    for (const topic of Object.values(TOPICS)) adopt(broker.logDir, pagelogRoot, `${topic}-0`);
    ({ broker, kafka } = await ownBroker({ dir: join(scratch, "broker"), restart: true }));
    const producer = kafka.producer();
    await producer.connect();
    const at = async (topic: string): Promise<number> =>
      Number((await producer.send({ topic, messages: [{ key: "after-adoption", value: "x" }] }))[0]!.baseOffset);
    producedAt = { plain: await at(TOPICS.plain), compacted: await at(TOPICS.compacted) };
    await producer.disconnect();
  }, 180_000);
  afterAll(async () => {
    await broker?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it.each(["plain", "compacted"] as const)(
    "%s: a record produced after the adoption lands at pagelog's end offset",
    (kind) => {
      expect(producedAt[kind]).toBe(written[kind].endOffset);
    },
  );

  it("Kafka's consumer reads every record as pagelog wrote it, and seeks into the middle land where pagelog says", async () => {
    const kinds = ["plain", "compacted"] as const;
    const plans = kinds.map((kind) => {
      const mine = written[kind].records;
      const seeks = [mine[1]!.offset, mine[Math.floor(mine.length / 2)]!.offset, mine.at(-1)!.offset];
      // In the compacted partition, an offset the cleaner dropped: served from the next record kept.
      const gap = mine.findIndex((r, i) => i > 0 && r.offset > mine[i - 1]!.offset + 1);
      if (kind === "compacted") expect(gap, "the compacted partition has offset gaps").toBeGreaterThan(0);
      if (gap > 0) seeks.push(mine[gap]!.offset - 1);
      return { topic: TOPICS[kind], seeks };
    });
    const answers = await consumeAll(broker!.bootstrap, plans);
    kinds.forEach((kind, k) => {
      const mine = written[kind].records;
      const { records, landed } = answers[k]!;
      expect(records.slice(0, -1), kind).toEqual(mine);
      expect(records.at(-1), kind).toMatchObject({
        offset: written[kind].endOffset,
        key: hex(Buffer.from("after-adoption")),
      });
      expect(landed, kind).toEqual(plans[k]!.seeks.map((s) => mine.find((r) => r.offset >= s)!.offset));
    });
  });

  it.each(["plain", "compacted"] as const)(
    "%s: ListOffsets by timestamp (the .timeindex) answers as pagelog does",
    async (kind) => {
      const admin = kafka.admin();
      await admin.connect();
      try {
        for (const [timestamp, offset] of written[kind].byTimestamp) {
          const [answer] = await admin.fetchTopicOffsetsByTimestamp(TOPICS[kind], timestamp);
          expect(Number(answer!.offset), `timestamp ${timestamp}`).toBe(offset);
        }
      } finally {
        await admin.disconnect();
      }
    },
  );

  it("the broker found nothing wrong with the adopted files (no corrupt-index or recovery warning)", () => {
    const warnings = readFileSync(broker!.logFile, "utf8")
      .split("\n")
      .filter((l) => /WARN|ERROR/.test(l) && /adopted|index|corrupt|recover/i.test(l));
    expect(warnings).toEqual([]);
  });
});
