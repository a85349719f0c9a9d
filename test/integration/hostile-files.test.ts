/**
 * The hostile-files sweep (DESIGN guarantees 9 and 10): a pristine log directory, closed
 * cleanly, mutated in every way a file can be wrong but a power cut never makes it, then opened
 * and read. For every file kind (segment `.log`, `.index`, `.timeindex`, both checkpoints, the
 * clean-shutdown marker, the `.lock`, temp/swap/deleted/cleaned leftovers, segment and partition
 * names) the cases are generated: sizes, every batch header field, every record field (varints
 * out of range, non-canonical and over-long), framing, checkpoint texts, names; each batch
 * mutation once with its CRC-32C fixed (so it passes the CRC) and once stale; then seeded random
 * damage. Each case runs after a clean shutdown, after a crash with the checkpoints, and after a
 * crash before any recovery-point checkpoint (where it applies).
 *
 * What each file kind may lead to is `Expect` in hostile/cases.ts. In every case: only
 * `PagelogError`s with a documented code; every record served is the one appended at its offset;
 * `records()` never ends early without an error; index lookups agree with a linear scan; an
 * append afterwards goes to the end; no case runs more than OP_BUDGET storage operations (a
 * hang); no read asks for more than the file holds (FsStorage allocates what a read asks for);
 * and an open that rejects changes no byte of any file (every file hashed before and after).
 *
 * On SimStorage (fast, in memory). The huge sparse files (2^31±1, 2^32±1 bytes) need real files:
 * hostile-files-huge.test.ts runs those in child processes with a 256 MiB heap.
 *
 * Seeded: PAGELOG_HOSTILE_SEED=<n> replays the random part; PAGELOG_HOSTILE_RANDOM=<n> sets how
 * many random cases (default 1500). A failure prints the seed and the command that replays it.
 */
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SimStorage } from "../../src/index.js";
import { type Case, describePristine, generateCases } from "./hostile/cases.js";
import { runCase } from "./hostile/run-case.js";
import { readTree, writePristine } from "./hostile/tree.js";

const SEED = process.env.PAGELOG_HOSTILE_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.PAGELOG_HOSTILE_SEED);
const RANDOM_CASES = Number(process.env.PAGELOG_HOSTILE_RANDOM ?? 1500);

const sim = new SimStorage({ seed: 1 });
const originals = await writePristine(sim);
const pristine = describePristine(await readTree(sim));
const cases = generateCases(pristine, SEED, RANDOM_CASES);
const groups = new Map<string, Case[]>();
for (const c of cases) groups.set(c.group, [...(groups.get(c.group) ?? []), c]);

const tally = new Map<string, number>();
let runs = 0;
const failures: Array<{ group: string; case: string; variant: string; violations: string[] }> = [];

describe("hostile files: every file kind, every field, sizes and names", () => {
  it("has a pristine directory worth damaging", () => {
    expect(pristine.segments.length).toBeGreaterThanOrEqual(3);
    expect(originals.length).toBe(pristine.end);
    expect(pristine.segments.every((s) => s.batches.length >= 2)).toBe(true);
  });

  for (const [group, members] of groups) {
    it(`${group} (${members.length} cases)`, async () => {
      const bad: string[] = [];
      for (const c of members) {
        for (const variant of c.variants) {
          const result = await runCase(pristine, originals, c, variant);
          runs++;
          const key = `${group}, ${variant}: ${result.outcome}`;
          tally.set(key, (tally.get(key) ?? 0) + 1);
          if (result.violations.length > 0) {
            failures.push({ group, case: c.id, variant, violations: result.violations });
            bad.push(`[${variant}] ${c.id}\n    ${result.violations.join("\n    ")}`);
          }
        }
      }
      if (bad.length > 0) {
        const replay = group.startsWith("random") ? `\nReplay: PAGELOG_HOSTILE_SEED=${SEED} npx vitest run test/integration/hostile-files.test.ts -t "${group}"` : "";
        expect.fail(`${bad.length} of ${members.length} cases × variants broke a rule (seed ${SEED}):\n${bad.slice(0, 25).join("\n")}${bad.length > 25 ? `\n… and ${bad.length - 25} more` : ""}${replay}`);
      }
    });
  }

  it("reports the count and what the cases led to", () => {
    const lines = [...tally].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, n]) => `  ${k}: ${n}`);
    console.log(`hostile-files sweep: ${cases.length} cases, ${runs} opens (cases × variants), seed ${SEED}, ${failures.length} broke a rule\n${lines.join("\n")}`);
    if (process.env.PAGELOG_HOSTILE_REPORT !== undefined) writeFileSync(process.env.PAGELOG_HOSTILE_REPORT, JSON.stringify({ seed: SEED, cases: cases.length, runs, tally: Object.fromEntries(tally), failures }, null, 1));
  });
});
