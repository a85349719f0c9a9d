/**
 * `npm run demo:web` runs `node web/serve.mjs` through `sh -c`. A signal to the npm process
 * alone (SIGTERM, SIGINT from a supervisor, SIGKILL) ended npm but left the server serving, an
 * orphan (issue 31). The server now watches whoever started it: within a couple of seconds of
 * npm's end, no serve.mjs of that run may be left. Linux only (it finds the server in /proc).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "../..");

/** Pids of the processes whose command line is `node web/serve.mjs <outdir>`. */
function servers(outdir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (argv[1]?.endsWith("serve.mjs") && argv[2] === outdir && running(Number(entry))) found.push(Number(entry));
    } catch {
      // gone since the listing
    }
  }
  return found;
}

/** Running: there, and not a zombie (dead, waiting to be reaped, which a container's pid 1 may never do). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(existsSync("/proc/self/stat"))("npm run demo:web stops with npm", () => {
  for (const signal of ["SIGTERM", "SIGINT", "SIGKILL"] as const) {
    it(`${signal} to the npm process: no serve.mjs left within 2 s`, async () => {
      const outdir = mkdtempSync(join(tmpdir(), "pagelog-web-serve-"));
      const npm = spawn("npm", ["run", "demo:web", "--", outdir], {
        cwd: repo,
        env: { ...process.env, PORT: "0" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      npm.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      npm.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
      let left: number[] = [];
      try {
        for (let i = 0; i < 300 && !out.includes("at http://"); i++) await sleep(100);
        expect(out).toContain("at http://");
        expect(servers(outdir)).toHaveLength(1);
        npm.kill(signal);
        for (let i = 0; i < 20 && servers(outdir).length > 0; i++) await sleep(100);
        left = servers(outdir);
        expect(left).toEqual([]);
      } finally {
        for (const pid of left) process.kill(pid, "SIGKILL"); // what this test started, by pid
        if (npm.exitCode === null && npm.signalCode === null) npm.kill("SIGKILL");
        rmSync(outdir, { recursive: true, force: true });
      }
    });
  }
});
