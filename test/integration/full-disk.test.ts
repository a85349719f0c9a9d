/**
 * A real full disk: a small tmpfs filled to the last block. Opening and reading need no free
 * space, a rejected open leaves no lock file, and deleteRecordsBefore frees space through the
 * API. Needs root (to mount); skipped elsewhere, with the reason printed.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs/promises";
import * as nodePath from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorCode } from "../../src/errors.js";
import { CLEAN_SHUTDOWN_FILE, LOCK_FILE, LogDir } from "../../src/log/log-dir.js";
import { makeTempDir } from "../unit/log/helpers.js";

let mountPoint: string | undefined;
let skipReason = "";

beforeAll(async () => {
  const dir = await makeTempDir();
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=512k", "tmpfs", dir], { stdio: "pipe" });
    mountPoint = dir;
  } catch (err) {
    skipReason = `cannot mount a tmpfs here (${String(err).split("\n")[0]})`;
  }
});
afterAll(() => {
  if (mountPoint !== undefined) execFileSync("umount", [mountPoint], { stdio: "pipe" });
});

/** Writes a filler file until the device is full. */
async function fillDisk(root: string): Promise<void> {
  const handle = await fs.open(nodePath.join(root, "filler"), "w");
  const block = new Uint8Array(4096);
  try {
    for (;;) await handle.write(block);
  } catch (err) {
    expect((err as { code?: string }).code).toBe("ENOSPC");
  } finally {
    await handle.close();
  }
}

async function codeOf(action: () => Promise<unknown>): Promise<string | undefined> {
  return action().then(
    () => undefined,
    (e: unknown) => (e as { code?: string }).code,
  );
}

describe("a full disk", () => {
  it("opens, reads and frees space through the API", async (ctx) => {
    if (mountPoint === undefined) ctx.skip(skipReason);
    const root = nodePath.join(mountPoint!, "logs");
    const dir = await LogDir.open(root, { log: { segmentBytes: 16 * 1024 } });
    const log = await dir.log("t-0");
    const value = "v".repeat(1000);
    for (let i = 0; i < 100; i++) await log.append([{ value }]);
    await dir.close();
    await fillDisk(mountPoint!);

    const full = await LogDir.open(root);
    const opened = await full.log("t-0");
    expect((await opened.read(0, { maxRecords: 1 }))[0]!.offset).toBe(0);
    expect(opened.endOffset).toBe(100);
    await opened.deleteRecordsBefore(60);
    expect(opened.status).toBe("open");
    expect(opened.startOffset).toBe(60);
    await full.close();

    const again = await LogDir.open(root);
    expect(again.clean).toBe(true);
    expect((await again.log("t-0")).startOffset).toBe(60);
    await again.close();
    await fs.rm(nodePath.join(mountPoint!, "filler"));
    await fs.rm(root, { recursive: true });
  });

  it("a rejected open on a full disk leaves no lock file", async (ctx) => {
    if (mountPoint === undefined) ctx.skip(skipReason);
    const root = nodePath.join(mountPoint!, "bad");
    await fs.mkdir(nodePath.join(root, CLEAN_SHUTDOWN_FILE), { recursive: true });
    await fillDisk(mountPoint!);
    expect(await codeOf(() => LogDir.open(root))).toBe(ErrorCode.IO);
    await expect(fs.lstat(nodePath.join(root, LOCK_FILE))).rejects.toMatchObject({ code: "ENOENT" });
    await fs.rm(nodePath.join(mountPoint!, "filler"));
    await fs.rm(root, { recursive: true });
  });
});
