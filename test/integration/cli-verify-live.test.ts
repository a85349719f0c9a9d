/**
 * The built CLI (dist/cli.js: run `npm run build` first): `pagelog verify --json` in processes of
 * its own, again and again, beside a writer (this process) that holds the directory's lock and
 * appends, rolls and deletes segments meanwhile (issue 31: in 2 of 10 such runs verify printed
 * nothing and exited 1). And its text into a pipe is plain, with no colour asked for.
 */
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { LogDir } from "../../src/log/log-dir.js";

const CLI = "dist/cli.js";
let root: string | undefined;

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build before this test`);
});

afterEach(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** Runs the built CLI with stdout and stderr piped; resolves with its exit code and output. */
function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"], env });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

/** This environment without anything that asks for or against colour. */
function plainEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ["FORCE_COLOR", "NO_COLOR", "TERM", "CI"]) delete env[name];
  return env;
}

describe("pagelog verify in its own process", () => {
  it("--json beside a writer appending, rolling and deleting: JSON every time, the writer named, no damage", async () => {
    root = mkdtempSync(join(tmpdir(), "pagelog-verify-live-"));
    const dir = await LogDir.open(root);
    const logs = await Promise.all(
      ["w-0", "w-1", "w-2"].map((name) =>
        dir.log(name, { segmentBytes: 300, retentionBytes: 900, indexIntervalBytes: 100 }),
      ),
    );
    let writing = true;
    let appended = 0;
    const writer = (async () => {
      while (writing) {
        await Promise.all(logs.map((log) => log.append([{ value: "v".repeat(60) }, { value: "w".repeat(60) }])));
        appended++;
        if (appended % 20 === 0) await new Promise((r) => setImmediate(r));
      }
    })();
    const outcomes: string[] = [];
    try {
      for (let i = 0; i < 12; i++) {
        const { code, stdout, stderr } = await run(["verify", root, "--json"], plainEnv());
        let report: { status: string; writer: { pid: number } | null; problems: unknown[] };
        try {
          report = JSON.parse(stdout) as typeof report;
        } catch {
          outcomes.push(`run ${i}: exit ${code}, no JSON on stdout; stderr ${stderr.trim()}`);
          continue;
        }
        if (code !== 0 || report.status !== "clean" || report.writer?.pid !== process.pid)
          outcomes.push(`run ${i}: exit ${code}, ${report.status}, ${JSON.stringify(report.problems).slice(0, 300)}`);
      }
    } finally {
      writing = false;
      await writer;
      await dir.close();
    }
    expect(appended).toBeGreaterThan(12); // the writer did write while verify ran
    expect(outcomes).toEqual([]);
  });

  it("into a pipe with no FORCE_COLOR (or an empty one): no escape codes, damaged or not", async () => {
    root = mkdtempSync(join(tmpdir(), "pagelog-verify-pipe-"));
    const dir = await LogDir.open(root);
    await (await dir.log("c-0")).append([{ value: "v" }]);
    await dir.close();
    appendFileSync(join(root, "c-0", "00000000000000000000.log"), "torn");
    for (const env of [plainEnv(), { ...plainEnv(), FORCE_COLOR: "" }, { ...plainEnv(), TERM: "xterm-256color" }]) {
      const { code, stdout } = await run(["verify", root], env);
      expect(code).toBe(1);
      expect(stdout).toMatch(/DAMAGED/);
      expect(stdout).not.toContain("\x1b[");
    }
  });
});
