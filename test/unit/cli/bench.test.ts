// pagelog bench runs, prints its table or JSON, and cleans up after itself. Benchmarks, not timed
// tests: nothing here looks at a figure's size, only at its shape.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resolveBenchOptions } from "../../../src/bench/options.js";
import { installNativeCrc32c } from "../../../src/format/crc32c-accelerator.js";
import { loadNativeCrc32c } from "../../../src/storage/fs-native-crc32c.js";
import { ROWS } from "../../../src/bench/rows/rows.js";
import { cli, tempDir } from "./helpers.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  // `--crc js` in-process sets pagelog's CRC-32C for the worker: the next file gets the default back.
  installNativeCrc32c(
    () => loadNativeCrc32c(),
    () => {},
  );
});

function freshDir(): string {
  const dir = tempDir("bench");
  dirs.push(dir);
  return dir;
}

interface Stats {
  min: number;
  median: number;
  max: number;
}

interface JsonRow {
  row: string;
  unit: string;
  pagelog: Stats;
  reference: Stats | null;
  ratio: Stats | null;
  goal: string | null;
  met: boolean | null;
  peakRssMB: number | null;
  notes: string[];
  error?: string;
}

function expectStats(s: Stats | null, what: string): void {
  expect(s, what).not.toBeNull();
  for (const v of [s!.min, s!.median, s!.max]) expect(Number.isFinite(v), what).toBe(true);
  expect(s!.min, what).toBeLessThanOrEqual(s!.median);
  expect(s!.median, what).toBeLessThanOrEqual(s!.max);
}

const quick = (dir: string, rows: string, ...more: string[]) => [
  "bench",
  "--in-process",
  "--scale",
  "0.001",
  "--repeats",
  "1",
  "--dir",
  dir,
  "--tmpfs",
  dir,
  "--rows",
  rows,
  ...more,
];

describe("pagelog bench", () => {
  it("--json: the rows asked, each with min <= median <= max and a ratio, and the temp directories removed", async () => {
    const dir = freshDir();
    const asked = ["append-1KiB", "durable-append", "read-batches", "reopen-10k-segments", "lookups"];
    const run = await cli(quick(dir, asked.join(","), "--json", "--repeats", "2"));
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { meta: Record<string, unknown>; rows: JsonRow[] };
    expect(out.meta).toMatchObject({ scale: 0.001, repeats: 2, mode: "in-process" });
    expect(String(out.meta.crc)).toMatch(/^native \(@node-rs\/crc32 /);
    for (const name of asked)
      expect(
        out.rows.some((r) => r.row === name || r.row.startsWith(`${name}/`)),
        name,
      ).toBe(true);
    expect(out.rows.map((r) => r.row)).toContain("lookups/offsetForTimestamp");
    for (const r of out.rows) {
      expect(r.error, r.row).toBeUndefined();
      expect(typeof r.unit, r.row).toBe("string");
      expectStats(r.pagelog, `${r.row} pagelog`);
      expectStats(r.reference, `${r.row} reference`);
      expectStats(r.ratio, `${r.row} ratio`);
      expect(r.peakRssMB, r.row).toBeNull(); // in-process: no RSS of its own
      expect([true, false, null], r.row).toContain(r.met);
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it("prints a header and one table, every other row too", async () => {
    const dir = freshDir();
    const rows = "append-100B,append-in-flight,recovery-scan,records,clean-reopen-bytes,append-4GB";
    const run = await cli(quick(dir, rows));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^pagelog bench · node v\d+/);
    expect(run.stdout).toMatch(/CRC-32C: native .* scale 0\.001 · repeats 1 · rows run in-process/);
    expect(run.stdout).toMatch(/^row +unit +pagelog min +median +max +ref median +ratio min/m);
    for (const name of rows.split(",")) expect(run.stdout).toMatch(new RegExp(`^${name} +(MB/s|ms) +\\d`, "m"));
    expect(readdirSync(dir)).toEqual([]);
  });

  it("bad arguments are one-line errors with exit 2, and leave nothing behind", async () => {
    const dir = freshDir();
    for (const argv of [
      ["--rows", "nope"],
      ["--repeats", "0"],
      ["--scale", "-1"],
      ["--scale", "x"],
      ["--crc", "fast"],
      ["--bogus"],
    ]) {
      const run = await cli(["bench", "--in-process", "--dir", dir, "--tmpfs", dir, ...argv]);
      expect(run.code, argv.join(" ")).toBe(2);
      expect(run.stderr.trim().split("\n"), argv.join(" ")).toHaveLength(1);
      expect(run.stdout, argv.join(" ")).toBe("");
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it("the header says which CRC-32C ran: native by default where @node-rs/crc32 is installed, js with --crc js", async () => {
    const dir = freshDir();
    const crcOf = async (...flags: string[]) => {
      const run = await cli(quick(dir, "append-100B", ...flags, "--json"));
      expect(run.code, run.stderr).toBe(0);
      return String((JSON.parse(run.stdout) as { meta: { crc: string } }).meta.crc);
    };
    // @node-rs/crc32 is pagelog's optional dependency, installed here by npm ci.
    const native = /^native \(@node-rs\/crc32 \d+\.\d+\.\d+\) from \d+ B, the pure-JS table below$/;
    expect(await crcOf()).toMatch(native);
    expect(await crcOf("--crc", "native")).toMatch(native);
    expect(await crcOf("--crc", "js")).toBe("js (pagelog (pure JS): --crc js)");
    expect(readdirSync(dir)).toEqual([]);
  });

  it("--crc native where there is no native CRC-32C is one usage line (exit 2)", async () => {
    vi.stubEnv("PAGELOG_CRC32C", "js");
    try {
      const dir = freshDir();
      const run = await cli(quick(dir, "append-100B", "--crc", "native", "--json"));
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split("\n")).toEqual([
        "pagelog bench: --crc native: no native CRC-32C: PAGELOG_CRC32C=js",
      ]);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("--dir that does not exist is a usage error", async () => {
    const run = await cli(["bench", "--in-process", "--dir", "/nonexistent/pagelog-bench", "--rows", "records"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^pagelog bench: --dir must be an existing directory/);
  });

  it("--help lists every row", async () => {
    const run = await cli(["bench", "--help"]);
    expect(run.code).toBe(0);
    for (const name of ["append-100B", "durable-append", "reopen-10k-segments", "lookups", "append-4GB"])
      expect(run.stdout).toContain(name);
  });

  it("--child-row and --child-fixture are not flags of the public parser (exit 2)", async () => {
    const dir = freshDir();
    for (const flag of ["--child-row", "--child-fixture"]) {
      const run = await cli(["bench", "--in-process", "--dir", dir, "--tmpfs", dir, flag, "records"]);
      expect(run.code, flag).toBe(2);
      expect(run.stderr).toContain(`unknown option '${flag}'`);
      expect(run.stdout).toBe("");
    }
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("the bench's options object", () => {
  it("an unknown key is a TypeError naming it and the known ones", () => {
    expect(() => resolveBenchOptions({ repeat: 2 } as never)).toThrow(TypeError);
    expect(() => resolveBenchOptions({ repeat: 2 } as never)).toThrow(
      /bench options: unknown option "repeat" \(did you mean "repeats"\?\); known: dir, tmpfs, repeats, scale, rows, json, crc, inProcess/,
    );
  });

  it("resolves every field, defaults included; tmpfs falls back to dir when there is no /dev/shm", () => {
    const dir = freshDir();
    const all = resolveBenchOptions({ dir });
    expect(Object.keys(all).sort()).toEqual(["crc", "dir", "inProcess", "json", "repeats", "rows", "scale", "tmpfs"]);
    expect(all).toMatchObject({ dir, repeats: 5, scale: 1, json: false, crc: "auto", inProcess: false });
    expect(all.rows).toEqual(ROWS.map((r) => r.name));
    expect(resolveBenchOptions({ dir, tmpfs: dir, rows: ["records", "records"] })).toMatchObject({
      tmpfs: dir,
      rows: ["records"],
    });
  });

  it("a bad value names the option", () => {
    const dir = freshDir();
    expect(() => resolveBenchOptions({ dir, repeats: 0 })).toThrow(/repeats must be an integer in \[1, 1000\]/);
    expect(() => resolveBenchOptions({ dir, scale: 0 })).toThrow(/scale must be a number in \(0, 1000\]/);
    expect(() => resolveBenchOptions({ dir, rows: ["nope"] })).toThrow(/unknown row 'nope'/);
    expect(() => resolveBenchOptions({ dir, crc: "fast" as never })).toThrow(/crc must be "auto", "js" or "native"/);
    expect(() => resolveBenchOptions({ dir: join(dir, "missing") })).toThrow(/dir must be an existing directory/);
    expect(() => resolveBenchOptions({ dir, json: "yes" as never })).toThrow(/json must be a boolean/);
  });
});
