/**
 * Recovery starts at the segment holding the recovery point, as Kafka's LogLoader does: a
 * recovery point at a segment's base vouches for every segment below it, indexes included. Two
 * writers of such a recovery point make that true: the roll flush (which syncs the sealed segment
 * whole before it moves the recovery point) and a roll after a flush() that reached the end of the
 * then-active segment (which syncs the sealed segment's indexes before the next segment exists:
 * flush() syncs only an active segment's `.log`).
 */
import { describe, expect, it } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import { keepEverything, SimStorage } from "../../../../src/storage/sim-storage.js";
import { HookedStorage } from "../../../../src/testing/hooked-storage.js";
import { testSeed } from "../../../support/seed.js";
import { rng } from "../../../support/xorshift.js";
import { NAME, expectedAt, readAll, recordAt } from "../helpers.js";

describe("recovery starts at the segment holding the recovery point", () => {
  it("after roll flushes alone, an unclean restart walks the active segment only", async () => {
    const next = rng(testSeed());
    const sim = new SimStorage({ seed: 21 });
    const options = { segmentBytes: 200 + next(400) };
    const dir = await LogDir.open(sim, { log: options, checkpointIntervalMs: 0 });
    const log = await dir.log(NAME);
    const rolls = 3 + next(6);
    while (log.segmentCount <= rolls) await log.append([recordAt(log.endOffset)]);
    const base = log.segmentBaseOffsets.at(-1)!;
    await log.waitFor(base - 1, { durable: true, signal: AbortSignal.timeout(5000) });
    await dir.checkpoint(); // says `base`: every roll flush is done
    const end = log.endOffset;
    const after = await (await LogDir.open(sim.crash(keepEverything), { log: options })).log(NAME);
    expect(after.recovery.clean).toBe(false);
    expect(after.recovery.segmentsScanned, `segmentBytes ${options.segmentBytes}, ${rolls} rolls`).toBe(1);
    expect(after.endOffset).toBe(end);
    expect(await readAll(after)).toEqual(Array.from({ length: end }, (_, i) => expectedAt(i)));
  });

  it("a roll after a flush() that reached the segment's end syncs its indexes before the next segment exists", async () => {
    const events: string[] = [];
    const storage = new HookedStorage(new SimStorage({ seed: 22 }), (op, run) => {
      if (op.kind === "sync" || (op.kind === "open" && op.path.endsWith(".log"))) events.push(`${op.kind} ${op.path}`);
      return run();
    });
    // Flushing off and no background roll flush can have run: each append is flushed by hand.
    const dir = await LogDir.open(storage, {
      log: { segmentBytes: 300, indexIntervalBytes: 1 },
      checkpointIntervalMs: -1,
    });
    const log = await dir.log(NAME);
    let rolled = false;
    while (!rolled) {
      await log.append([recordAt(log.endOffset)]);
      rolled = log.segmentCount > 1;
      if (!rolled) await log.flush(); // the recovery point is at the active segment's end
    }
    const sealed = `${NAME}/00000000000000000000`;
    const next = `${NAME}/${String(log.segmentBaseOffsets[1]).padStart(20, "0")}.log`;
    const created = events.indexOf(`open ${next}`);
    expect(created).toBeGreaterThan(0);
    const before = events.slice(0, created);
    expect(before).toContain(`sync ${sealed}.index`);
    expect(before).toContain(`sync ${sealed}.timeindex`);
    await dir.close();
  });
});
