/**
 * `npm run bench:peers` (bench/peers.mjs) without a network: its arguments, its table's goal and
 * met columns (≥ 3x on the throughput rows, a reopen no slower than the fastest peer, n/a below
 * 100 MB), and a failed install that says why and exits 1, leaving no scratch folder behind.
 * Nothing here runs a workload or looks at a figure's size.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseArgs, renderTable, ROWS, summarize, USAGE } from "../../../bench/peers-table.mjs";

const dir = mkdtempSync(join(tmpdir(), "pagelog-peers-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const script = join(import.meta.dirname, "../../../bench/peers.mjs");
const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [script, ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 60_000,
  });

const row = (name: string) => ROWS.find((r) => r.name === name)!;

describe("bench:peers arguments", () => {
  it("defaults: 100 MB, 3 rounds, every row; --mb, --rounds, --rows, --json, --dir, --peers-dir", () => {
    const d = parseArgs([]);
    expect(d).toMatchObject({ mb: 100, rounds: 3, json: false, help: false, peersDir: undefined });
    expect(d.rows).toEqual(["append-1KiB", "append-100B", "durable-append", "records", "reopen"]);
    const o = parseArgs(["--mb", "2.5", "--rounds=5", "--rows", "reopen,records,reopen", "--json", "--dir", dir]);
    expect(o).toMatchObject({ mb: 2.5, rounds: 5, rows: ["reopen", "records"], json: true, dir });
    expect(parseArgs(["--peers-dir", "x"]).peersDir).toMatch(/\/x$/);
    expect(parseArgs(["--tmpfs", dir]).tmpfs).toBe(dir);
  });

  it("a bad value is a usage error naming the flag", () => {
    expect(() => parseArgs(["--mb", "0"])).toThrow(/--mb must be a positive number, got '0'/);
    expect(() => parseArgs(["--mb"])).toThrow(/--mb must be a positive number/);
    expect(() => parseArgs(["--rounds", "1.5"])).toThrow(/--rounds must be a positive integer/);
    expect(() => parseArgs(["--rows", "nope"])).toThrow(/--rows: unknown row 'nope'/);
    expect(() => parseArgs(["--dir", join(dir, "missing")])).toThrow(/--dir must be an existing, writable directory/);
    expect(() => parseArgs(["--bogus"])).toThrow(/unknown option '--bogus'/);
  });

  it("--help prints the usage (exit 0); bad arguments are one line on stderr (exit 2), nothing on stdout", () => {
    const help = run(["--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toBe(USAGE);
    expect(help.stdout).toMatch(/--mb N[\s\S]*--rounds N[\s\S]*--peers-dir DIR/);
    for (const args of [["--mb", "-1"], ["--rows", "x"], ["--nope"]]) {
      const bad = run(args);
      expect(bad.status, args.join(" ")).toBe(2);
      expect(bad.stdout).toBe("");
      expect(bad.stderr.trim().split("\n"), args.join(" ")).toHaveLength(1);
    }
  });
});

describe("bench:peers table", () => {
  it("throughput rows: met when pagelog is at least 3x the peer in the median round", () => {
    const r = row("append-1KiB");
    const [aaol, hyper] = r.peers;
    const fast = summarize(r, aaol!, [300, 330, 360], [100, 100, 100], 100);
    const slow = summarize(r, hyper!, [300, 330, 360], [100, 150, 130], 100);
    expect(fast).toMatchObject({ goal: "≥ 3", met: true, ratio: { min: 3, median: 3.3, max: 3.6 } });
    expect(slow).toMatchObject({ met: false, ratio: { min: 2.2, max: 3 } });
    expect(summarize(r, hyper!, [100, 200, 100], [50, 50, 50], 100)).toMatchObject({ met: false });
    const text = renderTable([fast, summarize(r, hyper!, [290], [100], 100)], 100);
    expect(text[2]).toMatch(/^append-1KiB +MB\/s +330 +async-append-only-log +100 +3\.30x +\(3\.00–3\.60\) +≥ 3 +yes$/);
    expect(text[3]).toMatch(/2\.90x .*NO$/);
  });

  it("reopen: pagelog's ms over each peer's, met at 1 or less (no slower than the fastest peer)", () => {
    const r = row("reopen");
    expect(r.peers.map((p) => p.lib)).toEqual(["async-append-only-log", "hypercore", "better-sqlite3"]);
    expect(summarize(r, r.peers[0]!, [26.5], [9.2], 100)).toMatchObject({ goal: "≤ 1", met: false });
    expect(summarize(r, r.peers[1]!, [9], [10.4], 100)).toMatchObject({ met: true });
  });

  it("durable-append compares async-append-only-log twice: its background writer, and acknowledged per call", () => {
    const labels = row("durable-append").peers.map((p) => p.label);
    expect(labels).toEqual([
      "async-append-only-log, background writer",
      "async-append-only-log, onDrain per call",
      "hypercore (no fsync)",
      "better-sqlite3 WAL, synchronous=FULL",
    ]);
  });

  it("SQLite's goal is its own, ≥ 1 (a native engine), on every throughput row; the JS peers keep ≥ 3", () => {
    for (const name of ["append-1KiB", "append-100B", "durable-append", "records"]) {
      const r = row(name);
      const sqlite = r.peers.find((p) => p.lib === "better-sqlite3");
      expect(sqlite, name).toBeDefined();
      expect(summarize(r, sqlite!, [110], [100], 100), name).toMatchObject({ goal: "≥ 1", met: true });
      expect(summarize(r, sqlite!, [90], [100], 100), name).toMatchObject({ met: false });
      for (const js of r.peers.filter((p) => p.lib !== "better-sqlite3"))
        expect(summarize(r, js, [110], [100], 100), `${name} ${js.lib}`).toMatchObject({ goal: "≥ 3", met: false });
    }
    expect(row("append-1KiB").peers.find((p) => p.lib === "better-sqlite3")?.label).toMatch(/synchronous=NORMAL/);
  });

  it("below 100 MB the goals are not judged: met null, 'n/a (--mb 10)'; a failed cell is FAILED at any size", () => {
    const r = row("records");
    const small = summarize(r, r.peers[0]!, [10], [1], 10);
    expect(small.met).toBeNull();
    expect(renderTable([small], 10)[2]).toMatch(/10\.0x .*≥ 3 +n\/a \(--mb 10\)$/);
    const broken = summarize(r, r.peers[1]!, [], [], 10, "hypercore read: boom");
    expect(broken).toMatchObject({ met: false, error: "hypercore read: boom", ratio: null });
    expect(renderTable([broken], 10)[2]).toMatch(/FAILED$/);
  });
});

describe("bench:peers without a registry", () => {
  it("says the npm install failed and why, exits 1, and removes its scratch folders", () => {
    const parent = mkdtempSync(join(dir, "run-"));
    const out = run(["--mb", "1", "--rounds", "1", "--dir", parent, "--tmpfs", parent], {
      npm_config_registry: "http://127.0.0.1:9/",
      npm_config_fetch_retries: "0",
      npm_config_cache: join(dir, "npm-cache"),
      npm_config_offline: "false",
      // As under `npm run -s`: the install's own npm must still say why it failed.
      npm_config_loglevel: "silent",
    });
    expect(out.status, out.stderr).toBe(1);
    expect(out.stdout).toBe("");
    expect(out.stderr).toMatch(
      /npm install of async-append-only-log@4\.3 hypercore@11 better-sqlite3@12 failed .*ECONNREFUSED/,
    );
    expect(out.stderr).not.toMatch(/\n\s+at /);
    expect(readdirSync(parent)).toEqual([]);
  }, 60_000);
});
