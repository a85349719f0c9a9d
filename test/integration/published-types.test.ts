/**
 * The packed package's .d.ts files compile in a reader's project whatever its `lib` and whether
 * or not it has @types/node, always with `skipLibCheck: false` (the checker reads every line of
 * them, and of @types/node where a project has it): a browser project on lib es2022 + dom without
 * @types/node, a Node project with it, and a project on lib esnext that uses `await using` (which
 * must find `Symbol.asyncDispose` on Log and LogDir, at compile time and at run time). Every entry
 * point is imported; none needs @types/node (pagelog/fs and pagelog/testing use Node at run time
 * only). Only TypeScript's own lib files go unchecked (`skipDefaultLibCheck`): checking lib.dom
 * says nothing of pagelog and was over half of each compile's CPU.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packedProject, repo, tsc } from "../support/packed-project.js";

let project: string;

beforeAll(() => {
  project = packedProject("pagelog-types-");
}, 600_000);

afterAll(() => {
  if (project !== undefined) rmSync(project, { recursive: true, force: true });
});

const ENTRY_POINTS = ["pagelog", "pagelog/format", "pagelog/course", "pagelog/fs", "pagelog/testing", "pagelog/kafka"];

/** Uses a name from every entry point, and Log's and LogDir's disposal, in a typed way. */
const EVERY_ENTRY_POINT = `import { LogDir, SimStorage, PagelogError, type Log, type Storage } from "pagelog";
import { encodeBatch, decodeBatchSync, type RecordInput } from "pagelog/format";
import { kafkaPolicies, checkPolicies } from "pagelog/course";
import { FsStorage } from "pagelog/fs";
import { crashTest, pagelogAdapter, storageContract } from "pagelog/testing";
import { mirror, type MirrorOptions } from "pagelog/kafka";
import * as root from "pagelog";
import * as format from "pagelog/format";
import * as course from "pagelog/course";
import * as fs from "pagelog/fs";
import * as testing from "pagelog/testing";
import * as kafka from "pagelog/kafka";

export async function use(log: Log): Promise<number> {
  const storage: Storage = new SimStorage({ seed: 1 });
  const dir = await LogDir.open(storage);
  const records: RecordInput[] = [{ key: "k", value: "v" }];
  const batch = encodeBatch(records, { baseOffset: 0 });
  const n = decodeBatchSync(batch).records.length + (await log.append(records)).lastOffset;
  await dir.close();
  return n;
}
export const used = [PagelogError, kafkaPolicies, checkPolicies, FsStorage.open, crashTest, pagelogAdapter, storageContract, mirror];
export const modules = [root, format, course, fs, testing, kafka];
// A LogDir of the root goes to the mirror as it is.
export async function mirrored(dir: LogDir): Promise<number> {
  const options: MirrorOptions = { dir, source: "orders", brokers: ["k:9092"], topic: "orders" };
  const running = await mirror(options);
  return (await running.stop()).records;
}
`;

/** Compiles `files` (name → text) in a directory of their own with these compiler options; returns tsc's output. */
function compile(name: string, options: Record<string, unknown>, files: Record<string, string>): string {
  const dir = join(project, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  const config = {
    compilerOptions: {
      strict: true,
      skipLibCheck: false,
      skipDefaultLibCheck: true,
      target: "es2022",
      noEmit: true,
      ...options,
    },
    files: Object.keys(files),
  };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(config));
  try {
    return execFileSync(process.execPath, [tsc, "-p", dir], { cwd: dir, encoding: "utf8", stdio: "pipe" });
  } catch (err) {
    const { stdout, stderr } = err as { stdout: string; stderr: string };
    return `${stdout}${stderr}` || String(err);
  }
}

const WITHOUT_NODE = { lib: ["es2022", "dom"], types: [] };
const WITH_NODE = { types: ["node"], typeRoots: [join(repo, "node_modules/@types")] };
// Each tsc run takes seconds (lib dom alone is large): one run per case, not the full product.
const NODENEXT = { module: "nodenext", moduleResolution: "nodenext" };
const BUNDLER = { module: "esnext", moduleResolution: "bundler" };

describe("the published types", () => {
  it("the test imports every entry point that package.json exports", () => {
    const manifest = JSON.parse(readFileSync(join(project, "node_modules/pagelog/package.json"), "utf8")) as {
      exports: Record<string, unknown>;
    };
    const exported = Object.keys(manifest.exports)
      .filter((e) => e !== "./package.json")
      .map((e) => (e === "." ? "pagelog" : `pagelog/${e.slice(2)}`));
    expect(exported.sort()).toEqual([...ENTRY_POINTS].sort());
    for (const entry of ENTRY_POINTS) expect(EVERY_ENTRY_POINT).toContain(`from "${entry}"`);
  });

  it("compile on lib es2022 + dom, without @types/node, without skipLibCheck: module nodenext, ESM and CJS", () => {
    const cjs =
      ENTRY_POINTS.map((e, i) => `import m${i} = require("${e}");`).join("\n") +
      "\nexport const all = [m0.LogDir, m1.encodeBatch, m2.kafkaPolicies, m3.FsStorage, m4.crashTest, m5.mirror];\n";
    const files = { "esm.mts": EVERY_ENTRY_POINT, "cjs.cts": cjs };
    expect(compile("no-node-nodenext", { ...WITHOUT_NODE, ...NODENEXT }, files)).toBe("");
  });

  it("compile on lib es2022 + dom, without @types/node, without skipLibCheck: moduleResolution bundler", () => {
    const files = { "every-entry-point.ts": EVERY_ENTRY_POINT };
    expect(compile("no-node-bundler", { ...WITHOUT_NODE, ...BUNDLER }, files)).toBe("");
  });

  it("compile with @types/node on lib es2022, where Symbol.asyncDispose is @types/node's", () => {
    const disposal = `import { LogDir, SimStorage } from "pagelog";
      export const closing: Promise<void> = (await LogDir.open(new SimStorage()))[Symbol.asyncDispose]();
      `;
    const files = { "esm.mts": EVERY_ENTRY_POINT, "disposal.mts": disposal };
    expect(compile("with-node-nodenext", { lib: ["es2022"], ...WITH_NODE, ...NODENEXT }, files)).toBe("");
  });

  // Each entry's .d.ts is one self-contained file, so a type two entries share (Storage,
  // LogOptions, PagelogError, CoursePolicies…) is declared in each: this program hands values
  // from one entry to another's functions, and must compile. In Node, `pagelog` re-exports
  // pagelog/fs's own FsStorage declaration (a class with private members is nominal).
  const MIXED = `import { LogDir, PagelogError, SimStorage, type LogOptions, type Storage, type CoursePolicies } from "pagelog";
    import { Segment, OffsetIndex, decodeBatchSync, type SegmentOptions } from "pagelog/format";
    import { kafkaPolicies, type CoursePolicies as CourseShapes } from "pagelog/course";
    import { crashTest, pagelogAdapter, storageContract, type StorageFactory } from "pagelog/testing";
    const sim = new SimStorage({ seed: 1 });
    const storage: Storage = sim;
    const policies: CoursePolicies = kafkaPolicies;
    const shapes: CourseShapes = policies;
    const options: LogOptions = { segmentBytes: 1 << 20, policies: shapes };
    const segmentOptions: SegmentOptions = { indexIntervalBytes: 4096, maxIndexBytes: 1 << 20, maxBatchBytes: 1 << 20, policies };
    export async function mixed(): Promise<unknown[]> {
      const segment = await Segment.open(storage, "", 0, segmentOptions);
      const index: OffsetIndex = segment.offsetIndex;
      const dir = await LogDir.open(sim, { log: options });
      const factory: StorageFactory = () => sim;
      storageContract("sim", factory, { describe: () => undefined, it: () => undefined });
      const summary = await crashTest(pagelogAdapter(options), { seed: 1, schedules: 1 });
      let code: string | undefined;
      try {
        decodeBatchSync(new Uint8Array(0));
      } catch (err) {
        if (err instanceof PagelogError) code = err.code;
      }
      return [index, dir, summary.schedules, code];
    }
    `;
  const NODE_MIXED = `import { FsStorage as RootFs, LogDir, type Storage } from "pagelog";
    import { FsStorage } from "pagelog/fs";
    export async function opened(path: string): Promise<RootFs> {
      const fs: RootFs = await FsStorage.open(path);
      const again: FsStorage = await RootFs.open(path);
      const storage: Storage = again;
      await (await LogDir.open(storage)).close();
      return fs;
    }
    `;

  it("types shared by entry points agree: values of one entry pass to another's functions", () => {
    const nodenext = { "mixed.mts": MIXED, "node-mixed.mts": NODE_MIXED };
    expect(compile("mixed-nodenext", { ...WITHOUT_NODE, ...NODENEXT }, nodenext)).toBe("");
    expect(compile("mixed-bundler", { ...WITHOUT_NODE, ...BUNDLER }, { "mixed.ts": MIXED })).toBe("");
  });

  const USING = `import { LogDir, SimStorage, PagelogError, type Log } from "pagelog";
    async function typed(): Promise<void> {
      await using dir = await LogDir.open(new SimStorage());
      await using log = await dir.log("t-0");
      const disposables: AsyncDisposable[] = [dir, log];
      void disposables;
    }
    export const key: (log: Log) => Promise<void> = (log) => log[Symbol.asyncDispose]();
    const disk = new SimStorage({ seed: 1 });
    {
      await using dir = await LogDir.open(disk);
      await (await dir.log("t-0")).append([{ value: "x" }]);
      // Still open: a second open of the same storage is refused.
      const second = await LogDir.open(disk).catch((e: unknown) => e);
      console.log(second instanceof PagelogError ? second.code : "opened twice");
    }
    // Disposed at the end of the block: the lock is free and the close was clean.
    const again = await LogDir.open(disk);
    console.log((await again.log("t-0")).endOffset, JSON.stringify(again.recovery), typeof typed);
    await again.close();
    `;

  it("on lib esnext without @types/node, Log and LogDir are AsyncDisposable: await using compiles", () => {
    expect(compile("esnext-bundler", { lib: ["esnext", "dom"], types: [], ...BUNDLER }, { "using.ts": USING })).toBe(
      "",
    );
  });

  it("on lib esnext with @types/node, await using compiles and, emitted for es2022, closes the LogDir at run time", () => {
    const options = { lib: ["esnext"], ...WITH_NODE, ...NODENEXT, noEmit: false, outDir: "out" };
    expect(compile("esnext-nodenext", options, { "using.mts": USING })).toBe("");
    // The emitted `await using` looks the method up by the runtime's Symbol.asyncDispose.
    const dir = join(project, "esnext-nodenext");
    const out = execFileSync(process.execPath, [join(dir, "out/using.mjs")], { cwd: dir, encoding: "utf8" });
    const [locked, reopened] = out.trim().split("\n");
    expect(locked).toBe("PAGELOG_LOCKED");
    const [endOffset, recovery] = reopened!.split(" ");
    expect(endOffset).toBe("1");
    expect(JSON.parse(recovery!)).toMatchObject({ clean: true });
  });
});
