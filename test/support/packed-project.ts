/**
 * A bare project with the package as users get it: dist/ built if it is stale, `npm pack`ed, the
 * tarball unpacked into `node_modules/pagelog`, and pagelog's one (optional) dependency (@node-rs/crc32,
 * the native CRC-32C, as npm installs it) linked from this checkout: nothing else, no test tools, no @types/node, no network. Several suites
 * pack at once (the packed-package, published-types and doc-blocks tests): a lock directory in
 * node_modules/.cache serialises the build and the pack, so that no suite packs a dist/ that
 * another is rebuilding. The tarball is kept there under a hash of what `npm pack` puts in it
 * (packedContentKey), so the three suites of a run pack once (npm pack is about 2 CPU-s), and a
 * change to any packed file packs anew. Returns the project's directory; the caller removes it.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const repo = resolve(import.meta.dirname, "../..");

/** The checkout's TypeScript compiler, run with `node` (the project has none of its own). */
export const tsc = join(repo, "node_modules/typescript/bin/tsc");

const LOCK = join(repo, "node_modules/.cache/pagelog-pack.lock");
/** The packed tarball, `<packedContentKey>.tgz`: one at a time, written and read under LOCK. */
const TARBALLS = join(repo, "node_modules/.cache/pagelog-pack");
const LOCK_TIMEOUT_MS = 10 * 60_000;

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Runs `fn` holding the pack lock; a lock left by a dead process is taken over. */
function withPackLock<T>(fn: () => T): T {
  mkdirSync(join(LOCK, ".."), { recursive: true });
  const deadline = Date.now() + LOCK_TIMEOUT_MS;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, "pid"), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      let owner = NaN;
      try {
        owner = Number(readFileSync(join(LOCK, "pid"), "utf8"));
      } catch {
        // Between the owner's mkdir and its pid write: wait.
      }
      if (Number.isInteger(owner) && !alive(owner)) rmSync(LOCK, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`${LOCK} held for ${LOCK_TIMEOUT_MS / 60_000} min`);
      else sleep(200);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** Every file under `path` (or `path` itself when it is a file), relative to `root`, sorted. */
function filesUnder(root: string, path: string): string[] {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full)
    .sort()
    .flatMap((name) => filesUnder(root, join(path, name)));
}

/**
 * A hash of every file `npm pack` takes from `root`: package.json, what its `files` names, and the
 * README, LICENSE and CHANGELOG npm always adds. Equal keys, equal tarballs (but for file times).
 */
export function packedContentKey(root: string): string {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { files?: string[] };
  const always = readdirSync(root).filter((name) => /^(readme|licen[cs]e|changelog)(\.|$)/i.test(name));
  const paths = [
    ...new Set(["package.json", ...(manifest.files ?? []), ...always].flatMap((p) => filesUnder(root, p))),
  ];
  const hash = createHash("sha256");
  for (const path of paths.sort()) {
    hash.update(`${path}\0`);
    hash.update(readFileSync(join(root, path)));
    hash.update("\0");
  }
  return hash.digest("hex").slice(0, 32);
}

/** The tarball of the package as it is now, packed unless one of the same content is kept. Under LOCK. */
function currentTarball(): string {
  // Builds dist/ as `npm run build` does when a source is newer (else leaves it), quietly.
  execFileSync(process.execPath, [join(repo, "scripts/ensure-built.mjs")], {
    cwd: repo,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const tarball = join(TARBALLS, `${packedContentKey(repo)}.tgz`);
  if (existsSync(tarball)) return tarball;
  rmSync(TARBALLS, { recursive: true, force: true });
  const packing = join(TARBALLS, "packing");
  mkdirSync(packing, { recursive: true });
  // Without scripts, so that stdout holds only npm's JSON.
  const out = execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", packing], {
    cwd: repo,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  renameSync(join(packing, (JSON.parse(out) as [{ filename: string }])[0].filename), tarball);
  rmSync(packing, { recursive: true, force: true });
  return tarball;
}

/** The project directory (under the system's temp directory, named `<prefix>…`). */
export function packedProject(prefix: string): string {
  const project = mkdtempSync(join(tmpdir(), prefix));
  const modules = join(project, "node_modules");
  mkdirSync(join(modules, "pagelog"), { recursive: true });
  // Unpacked under the lock: another suite may replace the kept tarball once the lock is free.
  withPackLock(() => {
    execFileSync("tar", ["-xzf", currentTarball(), "-C", join(modules, "pagelog"), "--strip-components=1"]);
  });
  // The optional dependency, from this checkout; nothing else (pagelog has no required runtime
  // dependency, pagelog/testing needs no test tools). @node-rs/crc32 finds its platform package
  // from its real path, here.
  mkdirSync(join(modules, "@node-rs"));
  symlinkSync(join(repo, "node_modules", "@node-rs/crc32"), join(modules, "@node-rs/crc32"), "dir");
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true }));
  return project;
}
