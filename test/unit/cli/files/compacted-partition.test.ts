/**
 * `pagelog dump` and `pagelog verify` of one partition directory of a compacted log (issue 22,
 * Deliver 5): the clean point is in the parent log directory's `cleaner-offset-checkpoint`, and
 * the gaps below it are the cleaner's, not problems, as the loader takes them.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import { cli, tempDir } from "../helpers.js";

describe("dump and verify of a compacted partition directory", () => {
  it("take the clean point from the parent's cleaner-offset-checkpoint", async () => {
    const dir = tempDir("compacted");
    const logDir = await LogDir.open(dir);
    const log = await logDir.log("orders-0", { cleanupPolicy: "compact", segmentBytes: 300 });
    for (let i = 0; i < 40; i++) await log.append([{ key: i % 5 === 0 ? `u${i}` : `k${i % 3}`, value: `v${i}` }]);
    await log.flush();
    expect((await log.compact()).segmentsCleaned).toBeGreaterThan(0);
    await logDir.close();
    const partition = join(dir, "orders-0");
    const verify = await cli(["verify", partition]);
    expect([verify.code, verify.stderr]).toEqual([0, ""]);
    const dump = await cli(["dump", "--json", partition]);
    expect(dump.code).toBe(0);
    const problems = [...dump.stdout.matchAll(/"problems":\[([^\]]*)\]/g)].map((m) => m[1]).filter((p) => p !== "");
    expect(problems).toEqual([]);
    // Without the checkpoint the same gaps are damage (as the loader would refuse them).
    rmSync(join(dir, "cleaner-offset-checkpoint"));
    expect((await cli(["verify", partition])).code).not.toBe(0);
    expect((await cli(["dump", "--json", partition])).stdout).toContain("the previous batch ended at");
    rmSync(dir, { recursive: true, force: true });
  });
});
