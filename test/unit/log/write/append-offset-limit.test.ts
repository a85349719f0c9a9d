/*
 * The largest offset: pagelog counts offsets in JS numbers, exact up to 2^53 - 1. A log whose
 * start a (hostile or crafted) log-start checkpoint put at 2^53 - 1 opens empty there, and an
 * append that would take its end past 2^53 - 1 fails alone with PAGELOG_OFFSET_OUT_OF_RANGE, before
 * any I/O: the log stays open, and its checkpoints stay exact (the hostile-files sweep found the
 * end at 2^53 and the checkpoint writer's assertion refusing it at close).
 */
import { describe, expect, it } from "vitest";
import { ErrorCode, LogDir, SimStorage } from "../../../../src/index.js";

const NAME = "p-0";

/** A directory whose log NAME, crashed after 3 records, has its log start checkpointed at `start`. */
async function startedAt(start: number): Promise<SimStorage> {
  const sim = new SimStorage({ seed: 7 });
  const dir = await LogDir.open(sim);
  const log = await dir.log(NAME);
  await log.append([{ value: "a" }, { value: "b" }, { value: "c" }]);
  await dir.close();
  await sim.remove(".kafka_cleanshutdown"); // a crash: a start past the end is then a start over
  const file = await sim.open("log-start-offset-checkpoint", { create: true });
  const text = new TextEncoder().encode(`0\n1\np 0 ${start}\n`); // Kafka's lines: topic, partition, offset
  await file.truncate(0);
  await file.write(0, text);
  await file.sync();
  await file.close();
  return sim;
}

describe("appends at the largest offset", () => {
  it("a log started at 2^53 - 1 refuses an append, stays open and closes with exact checkpoints", async () => {
    const dir = await LogDir.open(await startedAt(Number.MAX_SAFE_INTEGER));
    const log = await dir.log(NAME);
    expect(log.startOffset).toBe(Number.MAX_SAFE_INTEGER);
    expect(log.endOffset).toBe(Number.MAX_SAFE_INTEGER);
    await expect(log.append([{ value: "x" }])).rejects.toMatchObject({ code: ErrorCode.OFFSET_OUT_OF_RANGE });
    expect(log.endOffset).toBe(Number.MAX_SAFE_INTEGER);
    await dir.close(); // the checkpoint writer's assertion (PAGELOG_CHECKS=all) holds
  });

  it("a log started at 2^53 - 2 takes one record, then refuses the next; two at once fail together", async () => {
    const dir = await LogDir.open(await startedAt(Number.MAX_SAFE_INTEGER - 1));
    const log = await dir.log(NAME);
    await expect(log.append([{ value: "x" }, { value: "y" }])).rejects.toMatchObject({
      code: ErrorCode.OFFSET_OUT_OF_RANGE,
    });
    const { baseOffset } = await log.append([{ value: "x" }]);
    expect(baseOffset).toBe(Number.MAX_SAFE_INTEGER - 1);
    expect(log.endOffset).toBe(Number.MAX_SAFE_INTEGER);
    await expect(log.append([{ value: "y" }])).rejects.toMatchObject({ code: ErrorCode.OFFSET_OUT_OF_RANGE });
    const records = await log.read(Number.MAX_SAFE_INTEGER - 1);
    expect(records.map((r) => new TextDecoder().decode(r.value!))).toEqual(["x"]);
    await dir.close();
  });
});
