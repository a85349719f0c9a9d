/**
 * A private build of the package for tests that run it in child processes: `npm run build`
 * empties dist/ first, and other suites (the packed-package test's prepack) may rebuild dist/ at
 * the same time. It goes inside node_modules/.cache so that the build resolves the package's own
 * dependencies (crc-32) as dist/ does. Returns the directory; the caller removes it.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export function privateBuild(name: string, entries: readonly string[] = ["src/node.ts"]): string {
  mkdirSync(join(repo, "node_modules/.cache"), { recursive: true });
  const dir = mkdtempSync(join(repo, `node_modules/.cache/pagelog-${name}-`));
  execFileSync(
    process.execPath,
    [
      join(repo, "node_modules/tsup/dist/cli-default.js"),
      "--no-config",
      ...entries,
      "--format",
      "esm",
      "--target",
      "node20",
      "--out-dir",
      dir,
      "--silent",
    ],
    { cwd: repo, stdio: ["ignore", "pipe", "pipe"] },
  );
  return dir;
}
