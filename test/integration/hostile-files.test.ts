/**
 * The hostile-files sweep (guarantees 9 and 10 of docs/guarantees.md): a pristine log
 * directory, closed cleanly, mutated in every way a file can be wrong but a power cut never
 * makes it, then opened and read. For every file kind (segment `.log`, `.index`, `.timeindex`, both checkpoints, the
 * clean-shutdown marker, the `.lock`, temp/swap/deleted/cleaned leftovers, segment and partition
 * names) the cases are generated: sizes, every batch header field, every record field (varints
 * out of range, non-canonical and over-long), framing, checkpoint texts, names; each batch
 * mutation once with its CRC-32C fixed (so it passes the CRC) and once stale; then seeded random
 * damage. Each case runs after a clean shutdown, after a crash with the checkpoints, after a crash
 * before any recovery-point checkpoint, and (damage to segments) after a crash with the recovery
 * point in the middle of the log, where it applies.
 *
 * What each file kind may lead to is `Expect` in hostile/cases.ts. In every case: only
 * `PagelogError`s with a documented code; every record served is the one appended at its offset;
 * `records()` never ends early without an error; index lookups agree with a linear scan; an
 * append afterwards goes to the end; no case runs more than OP_BUDGET storage operations (a
 * hang); no read asks for more than the file holds (FsStorage allocates what a read asks for);
 * an open that rejects changes no byte of any file (every file hashed before and after), nor,
 * after a clean open (which checks old segments only on first use), a read that rejects; and
 * `pagelog verify`'s check, run on the same bytes first, changes nothing and does not call clean
 * what the library then refuses as damaged or unreadable.
 *
 * On SimStorage (fast, in memory). The huge sparse files (2^31±1, 2^32±1 and 10 GiB), symlinks
 * and FIFOs need real files: those cases run on FsStorage, each in a child process with a 256 MiB
 * heap (`--max-old-space-size=256`), a time limit and a peak-memory check, so an abort, a hang or
 * an out-of-memory fails one case, not the run.
 *
 * Every case (but the clean variant of a case that has others) is also opened read-only, as a
 * second process would (hostile/run-read-only.ts): no write call, no byte changed, and the same
 * rules for what it serves or throws.
 *
 * Every PAGELOG_HOSTILE_FS_EVERY-th open (default 25) runs again on real files (FsStorage) and
 * must end the same way.
 *
 * Seeded from PAGELOG_SEED (test/support/seed.ts), which replays the random part; PAGELOG_HOSTILE_RANDOM=<n> sets how
 * many random cases (default 1500). A failure prints the seed and the command that replays it.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileSeed, testReplayCommand } from "../support/seed.js";
import { size } from "../support/budget.js";
import { ErrorCode, SimStorage } from "../../src/node.js";
import { type Case, describePristine, generateCases, type Variant } from "./hostile/cases.js";
import { type CaseResult, prepare, runCase } from "./hostile/run-case.js";
import { runReadOnlyCase } from "./hostile/run-read-only.js";
import {
  MARKER,
  PARTITION,
  RECOVERY_CHECKPOINT,
  readTree,
  START_CHECKPOINT,
  type Tree,
  writePristine,
} from "./hostile/tree.js";

// The random cases are drawn at import time, from the file's seed (test/support/seed.ts).
const { seed: SEED } = fileSeed(import.meta.url);
const RANDOM_CASES = size("hostileRandom");

/** This process's peak memory before the sweep (a worker may have run other files before). */
const peakBeforeKiB = process.resourceUsage().maxRSS;
const sim = new SimStorage({ seed: 1 });
const originals = await writePristine(sim);
const pristine = describePristine(await readTree(sim));
const cases = generateCases(pristine, SEED, RANDOM_CASES);
const groups = new Map<string, Case[]>();
for (const c of cases) groups.set(c.group, [...(groups.get(c.group) ?? []), c]);

const tally = new Map<string, number>();
let runs = 0;
let childCases = 0;
let fsRuns = 0;
/** Every this many opens on SimStorage, the same case on real files too (1: all of them). */
const FS_EVERY = size("hostileFsEvery");
const failures: Array<{ group: string; case: string; variant: string; violations: string[] }> = [];
/** The SimStorage run of each distinct directory, variant and rules (see `treeKey`), and how often one repeated. */
const ranBefore = new Map<string, CaseResult>();
const readOnlyBefore = new Map<string, { outcome: string; violations: string[] }>();
let repeated = 0;

/**
 * Every entry of a prepared directory, `.lock` included: equal keys, equal bytes. A file byte for
 * byte the pristine one's is named as such (a compare, not a hash: most files of a case are).
 */
function treeKey(tree: Tree, variant: Variant): string {
  const lines = [...tree].map(([path, v]) => {
    if (v === "dir") return `${path}/`;
    const was = pristine.tree.get(path);
    if (was !== undefined && was !== "dir" && Buffer.from(v.buffer, v.byteOffset, v.length).equals(was))
      return `${path} =`;
    return `${path} ${v.length} ${createHash("sha256").update(v).digest("base64")}`;
  });
  return `${variant}\n${lines.sort().join("\n")}`;
}

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
          // The same bytes, variant and rules give the same run (SimStorage is seeded, the log
          // deterministic): a case whose directory repeats one before (random damage drawn twice,
          // a field set to the value it held) is judged by that run, not run again.
          const bytes = treeKey(prepare(pristine, c, variant), variant);
          const rules = `${bytes}\n${JSON.stringify({ expect: c.expect, mustRemain: c.mustRemain ?? [] })}`;
          const earlier = ranBefore.get(rules);
          if (earlier === undefined) ranBefore.set(rules, await runCase(pristine, originals, c, variant));
          else repeated++;
          const ran = ranBefore.get(rules)!;
          const result: CaseResult = { outcome: ran.outcome, violations: [...ran.violations] };
          runs++;
          if (runs % FS_EVERY === 0) {
            // Every FS_EVERY-th open again on real files: SimStorage must give the real answers.
            const dir = mkdtempSync(join(tmpdir(), "pagelog-hostile-fs-"));
            try {
              const onFs = await runCase(pristine, originals, c, variant, dir);
              fsRuns++;
              if (onFs.outcome !== result.outcome || onFs.violations.length !== result.violations.length) {
                result.violations.push(
                  `on real files (FsStorage) the same case gave ${onFs.outcome}${onFs.violations.length > 0 ? `: ${onFs.violations.join("; ")}` : ""}, on SimStorage ${result.outcome}`,
                );
              }
            } finally {
              rmSync(dir, { recursive: true, force: true });
            }
          }
          if (variant !== "clean" || c.variants.length === 1) {
            // The same bytes read by a second process (a read-only open): guarantee 9 holds there too.
            let ro = readOnlyBefore.get(bytes);
            if (ro === undefined)
              readOnlyBefore.set(bytes, (ro = await runReadOnlyCase(pristine, originals, c, variant)));
            result.violations.push(...ro.violations);
            const roKey = `${group}, ${variant}: ${ro.outcome}`;
            tally.set(roKey, (tally.get(roKey) ?? 0) + 1);
          }
          const key = `${group}, ${variant}: ${result.outcome}`;
          tally.set(key, (tally.get(key) ?? 0) + 1);
          if (result.violations.length > 0) {
            failures.push({ group, case: c.id, variant, violations: result.violations });
            bad.push(`[${variant}] ${c.id}\n    ${result.violations.join("\n    ")}`);
          }
        }
      }
      if (bad.length > 0) {
        const replay = group.startsWith("random") ? `\nReplay: ${testReplayCommand()}` : "";
        expect.fail(
          `${bad.length} of ${members.length} cases × variants broke a rule (seed ${SEED}):\n${bad.slice(0, 25).join("\n")}${bad.length > 25 ? `\n… and ${bad.length - 25} more` : ""}${replay}`,
        );
      }
    });
  }

  // A backstop for "no allocation larger than the file": reads are checked one by one (guardReads),
  // and this process (SimStorage holds a few KiB of files per case) must stay small throughout.
  it("stayed within 512 MiB of memory", () => {
    const peakMiB = Math.round(process.resourceUsage().maxRSS / 1024);
    const grewMiB = Math.round((process.resourceUsage().maxRSS - peakBeforeKiB) / 1024);
    console.log(
      `hostile-files sweep: this process peaked at ${peakMiB} MiB (${grewMiB} MiB above its peak before the sweep)`,
    );
    expect(grewMiB).toBeLessThan(512);
  });
});

// The count, and what the cases led to (outcome per group and variant); PAGELOG_HOSTILE_REPORT=<file>
// writes it, with every failure, as JSON.
afterAll(() => {
  const lines = [...tally].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, n]) => `  ${k}: ${n}`);
  console.log(
    `hostile-files sweep: ${cases.length} generated cases + ${childCases} real-file cases in child processes, ${runs} opens (cases × variants; ${repeated} of them a directory, variant and rules met before, judged by that run; ${fsRuns} also on real files), seed ${SEED}, ${failures.length} broke a rule\n${lines.join("\n")}`,
  );
  if (process.env.PAGELOG_HOSTILE_REPORT !== undefined)
    writeFileSync(
      process.env.PAGELOG_HOSTILE_REPORT,
      JSON.stringify(
        { seed: SEED, cases: cases.length, childCases, runs, tally: Object.fromEntries(tally), failures },
        null,
        1,
      ),
    );
});

/** Sizes node:fs and int32 fields are most likely to get wrong. */
const HUGE_SIZES = [2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1];
const CHILD = fileURLToPath(new URL("./hostile/huge-child.mjs", import.meta.url));
/** A child's peak memory above this is an allocation that followed a file's size. */
const MAX_CHILD_RSS_MIB = 512;

describe("hostile files on real files (huge sparse files, symlinks, FIFOs), each in a child process with a 256 MiB heap", () => {
  let root: string;
  let bundle: string;
  const pristineDir = () => join(root, "pristine");
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "pagelog-huge-"));
    await writePristine(pristineDir());
    // The child runs plain node: bundle the Node entry (FsStorage included) for it (esbuild comes with tsup).
    const { buildSync } = await import("esbuild");
    bundle = join(root, "pagelog.mjs");
    buildSync({
      entryPoints: [fileURLToPath(new URL("../../src/node.ts", import.meta.url))],
      bundle: true,
      format: "esm",
      platform: "node",
      outfile: bundle,
      logLevel: "silent",
    });
  }, 60_000);
  afterAll(() => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  });

  const first = pristine.segments[0]!;
  const last = pristine.segments[pristine.segments.length - 1]!;
  const targets: Array<{
    path: string;
    variants: readonly Variant[];
    expect: "intact" | "intactOrLoud";
    sizes: number[];
  }> = [
    {
      path: RECOVERY_CHECKPOINT,
      variants: ["clean", "unclean"],
      expect: "intactOrLoud",
      sizes: [...HUGE_SIZES, 10 * 2 ** 30],
    },
    { path: START_CHECKPOINT, variants: ["clean"], expect: "intactOrLoud", sizes: HUGE_SIZES },
    { path: MARKER, variants: ["clean"], expect: "intact", sizes: [2 ** 31 + 1, 2 ** 32 + 1] },
    { path: first.index, variants: ["clean", "unclean"], expect: "intact", sizes: HUGE_SIZES },
    { path: last.timeindex, variants: ["clean"], expect: "intact", sizes: [...HUGE_SIZES, 10 * 2 ** 30] },
    // A segment grown with zeros: flushed records all there, garbage after them.
    { path: last.log, variants: ["clean", "unclean"], expect: "intactOrLoud", sizes: HUGE_SIZES },
    { path: first.log, variants: ["clean"], expect: "intactOrLoud", sizes: [2 ** 31 + 1, 2 ** 32 + 1] },
  ];
  /** One case in a child process: a copy of the pristine directory, `prepare`d, opened and read there. */
  const runChild = (
    what: string,
    group: string,
    variant: Variant,
    prepare: (dir: string) => void,
    expected: "intact" | "intactOrLoud",
    timeoutMs = 60_000,
  ): string | undefined => {
    const dir = mkdtempSync(join(root, "case-"));
    try {
      cpSync(pristineDir(), dir, { recursive: true });
      rmSync(join(dir, ".lock"), { force: true });
      if (variant !== "clean") rmSync(join(dir, MARKER));
      prepare(dir);
      const child = spawnSync(process.execPath, ["--max-old-space-size=256", CHILD, bundle, dir, PARTITION], {
        encoding: "utf8",
        timeout: timeoutMs,
        killSignal: "SIGKILL",
      });
      runs++;
      childCases++;
      const violations = judgeChild(child, expected);
      const key = `${group}, ${variant}: ${violations.outcome}`;
      tally.set(key, (tally.get(key) ?? 0) + 1);
      if (violations.list.length === 0) return undefined;
      failures.push({ group, case: what, variant, violations: violations.list });
      return `[${variant}] ${what}\n    ${violations.list.join("\n    ")}`;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  for (const target of targets) {
    it(`${target.path} grown (sparse) to ${target.sizes.map((n) => (n % 2 ** 30 === 0 ? `${n / 2 ** 30} GiB` : `2^${Math.round(Math.log2(n))}${n > 2 ** Math.round(Math.log2(n)) ? "+1" : n < 2 ** Math.round(Math.log2(n)) ? "-1" : ""}`)).join(", ")} bytes`, () => {
      const bad: string[] = [];
      for (const size of target.sizes) {
        for (const variant of target.variants) {
          const problem = runChild(
            `${target.path} at ${size} bytes`,
            `huge: ${target.path.replace(/^.*\./, ".")}`,
            variant,
            (dir) => {
              if (target.path === MARKER) writeFileSync(join(dir, MARKER), "");
              truncateSync(join(dir, target.path), size);
            },
            target.expect,
          );
          if (problem !== undefined) bad.push(problem);
        }
      }
      if (bad.length > 0) expect.fail(`${bad.length} huge-file cases broke a rule:\n${bad.join("\n")}`);
    }, 600_000);
  }

  // Files that are not regular files. A FIFO blocks a read forever: an open must not wait on one.
  const special: Array<{
    what: string;
    variants: readonly Variant[];
    expect: "intact" | "intactOrLoud";
    prepare: (dir: string) => void;
  }> = [
    {
      what: ".lock a dangling symlink (no holder)",
      variants: ["clean", "unclean"],
      expect: "intact",
      prepare: (dir) => symlinkSync(join(dir, "nowhere"), join(dir, ".lock")),
    },
    {
      what: ".lock a symlink to a directory",
      variants: ["clean"],
      expect: "intactOrLoud",
      prepare: (dir) => symlinkSync(join(dir, PARTITION), join(dir, ".lock")),
    },
    {
      what: `${RECOVERY_CHECKPOINT} a symlink loop`,
      variants: ["clean", "unclean"],
      expect: "intactOrLoud",
      prepare: (dir) => (
        rmSync(join(dir, RECOVERY_CHECKPOINT)),
        symlinkSync(RECOVERY_CHECKPOINT, join(dir, RECOVERY_CHECKPOINT))
      ),
    },
    {
      what: `${RECOVERY_CHECKPOINT} a FIFO`,
      variants: ["clean", "unclean"],
      expect: "intactOrLoud",
      prepare: (dir) => fifo(join(dir, RECOVERY_CHECKPOINT)),
    },
    {
      what: `${START_CHECKPOINT} a FIFO`,
      variants: ["clean"],
      expect: "intactOrLoud",
      prepare: (dir) => fifo(join(dir, START_CHECKPOINT)),
    },
    {
      what: `${MARKER} a FIFO`,
      variants: ["clean"],
      expect: "intactOrLoud",
      prepare: (dir) => fifo(join(dir, MARKER)),
    },
    {
      what: `${first.index} a FIFO`,
      variants: ["clean", "unclean"],
      expect: "intactOrLoud",
      prepare: (dir) => fifo(join(dir, first.index)),
    },
    {
      what: `${last.log} a FIFO`,
      variants: ["clean"],
      expect: "intactOrLoud",
      prepare: (dir) => fifo(join(dir, last.log)),
    },
    {
      what: `${RECOVERY_CHECKPOINT}.tmp a FIFO`,
      variants: ["clean"],
      expect: "intact",
      prepare: (dir) => fifo(join(dir, `${RECOVERY_CHECKPOINT}.tmp`)),
    },
  ];
  it(`files that are not regular files: symlinks and FIFOs (${special.length} cases)`, () => {
    const bad: string[] = [];
    for (const c of special) {
      for (const variant of c.variants) {
        const problem = runChild(c.what, "special files", variant, c.prepare, c.expect, 15_000);
        if (problem !== undefined) bad.push(problem);
      }
    }
    if (bad.length > 0) expect.fail(`${bad.length} special-file cases broke a rule:\n${bad.join("\n")}`);
  }, 600_000);
});

/** A FIFO (named pipe) at `path`, in place of the file there. */
function fifo(path: string): void {
  rmSync(path, { force: true });
  const made = spawnSync("mkfifo", [path]);
  if (made.status !== 0) throw new Error(`mkfifo ${path} failed: ${String(made.stderr)}`);
}

interface ChildResult {
  records: Array<{ offset: number; key: string | null; value: string | null }>;
  error?: { name: string; code?: string; pagelog: boolean; message: string };
  closeError?: { name: string; code?: string; pagelog: boolean; message: string };
  phase: string;
  startOffset?: number;
  endOffset?: number;
  changedByRejectingOpen?: { before: string; after: string };
  overReads: Array<{ path: string; position: number; length: number; size: number }>;
  maxRssMiB: number;
}

const DOCUMENTED = new Set<string>(Object.values(ErrorCode));

function judgeChild(
  child: ReturnType<typeof spawnSync>,
  expected: "intact" | "intactOrLoud",
): { outcome: string; list: string[] } {
  const list: string[] = [];
  const stderr = String(child.stderr ?? "")
    .trim()
    .split("\n")
    .slice(-3)
    .join(" / ");
  if (child.error !== undefined)
    return { outcome: "no end", list: [`the child did not finish: ${child.error.message} (a hang)`] };
  if (child.status !== 0)
    return {
      outcome: `exit ${child.status ?? child.signal}`,
      list: [`the process died: exit ${child.status ?? ""} ${child.signal ?? ""}: ${stderr}`],
    };
  let r: ChildResult;
  try {
    r = JSON.parse(String(child.stdout).trim().split("\n").pop()!) as ChildResult;
  } catch {
    return {
      outcome: "no result",
      list: [`the child printed no result: ${String(child.stdout).slice(0, 200)} ${stderr}`],
    };
  }
  for (const [where, e] of [
    [r.phase, r.error],
    ["close()", r.closeError],
  ] as const) {
    if (e === undefined) continue;
    if (!e.pagelog) list.push(`${where} threw ${e.name} (not a PagelogError): ${e.message}`);
    else if (!DOCUMENTED.has(e.code ?? "")) list.push(`${where} threw an undocumented code ${e.code}`);
    if (/pagelog bug|ERR_|EINVAL|RangeError/.test(e.message))
      list.push(`${where}: a message from inside: ${e.message}`);
  }
  if (r.changedByRejectingOpen !== undefined)
    list.push(
      `${r.phase} rejected the log but changed files first: before ${r.changedByRejectingOpen.before.replace(/\n/g, "; ")} after ${r.changedByRejectingOpen.after.replace(/\n/g, "; ")}`,
    );
  for (const o of r.overReads.slice(0, 2))
    list.push(`read of ${o.length} bytes at ${o.position} of ${o.path}, which holds ${o.size}`);
  if (r.maxRssMiB > MAX_CHILD_RSS_MIB) list.push(`the process peaked at ${r.maxRssMiB} MiB`);
  for (const [k, rec] of r.records.entries()) {
    const want = originals[rec.offset];
    if (
      rec.offset !== (r.startOffset ?? 0) + k ||
      want === undefined ||
      want.key !== rec.key ||
      want.value !== rec.value
    ) {
      list.push(`records() #${k} is ${JSON.stringify(rec)}, not what was appended at ${k}`);
      break;
    }
  }
  const loud = r.error !== undefined;
  if (!loud && (r.startOffset !== 0 || r.records.length !== originals.length || r.endOffset !== originals.length)) {
    list.push(
      `opened with ${r.records.length} records [${r.startOffset}, ${r.endOffset}): flushed records lost without an error`,
    );
  }
  if (loud && expected === "intact")
    list.push(
      `expected every record (the file is not one the log trusts), got ${r.error!.code ?? r.error!.name} in ${r.phase}: ${r.error!.message}`,
    );
  return { outcome: loud ? `${r.phase}: ${r.error!.code ?? r.error!.name}` : "opened: every record", list };
}
