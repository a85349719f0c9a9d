/**
 * The package as users get it: `npm pack`, unpacked into a bare project, loaded through its
 * `exports` map as ESM and as CJS, and its `pagelog` binary run. Tests of the sources alone miss
 * a broken exports map, a missing file in `files`, or an import of a package that is not a
 * dependency. The project holds pagelog and its optional dependency only, no test tools: `pagelog/testing`
 * must run there under `node --test`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storageContract } from "../../src/testing/storage-contract.js";
import { packedContentKey, packedProject, repo } from "../support/packed-project.js";

let project: string;

function node(args: string[], cwd = project): string {
  return execFileSync(process.execPath, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

beforeAll(() => {
  project = packedProject("pagelog-packed-");
}, 600_000);

afterAll(() => {
  if (project !== undefined) rmSync(project, { recursive: true, force: true });
});

describe("the packed package", () => {
  it("ships dist, docs, README and CHANGELOG, and nothing from test/ or src/", () => {
    const shipped = readdirSync(join(project, "node_modules/pagelog"));
    expect(shipped).toEqual(expect.arrayContaining(["dist", "docs", "README.md", "CHANGELOG.md", "package.json"]));
    expect(shipped).not.toContain("test");
    expect(shipped).not.toContain("src");
    const dist = readdirSync(join(project, "node_modules/pagelog/dist"));
    const entries = ["index", "node", "format", "fs", "testing", "course", "kafka"].flatMap((e) => [
      `${e}.js`,
      `${e}.cjs`,
      `${e}.d.ts`,
      `${e}.d.cts`,
    ]);
    expect(dist).toEqual(expect.arrayContaining([...entries, "cli.js"]));
  });

  it("loads as ESM and works on the simulator and the real file system", () => {
    const dir = join(project, "esm-data");
    const out = node([
      "--input-type=module",
      "-e",
      `
      import { SimStorage, FsStorage, PagelogError, ErrorCode } from "pagelog";
      const sim = new SimStorage({ seed: 1 });
      const f = await sim.open("a", { create: true });
      await f.write(0, new TextEncoder().encode("hi"));
      const lost = await (await sim.crash().open("a").catch((e) => e));
      const fs = await FsStorage.open(${JSON.stringify(dir)});
      const err = await fs.open("../escape").catch((e) => e);
      console.log(JSON.stringify([lost instanceof PagelogError, lost.code, err.code, err instanceof PagelogError, ErrorCode.IO]));
      await fs.close();
      `,
    ]);
    expect(JSON.parse(out)).toEqual([true, "PAGELOG_NOT_FOUND", "PAGELOG_INVALID_PATH", true, "PAGELOG_IO"]);
  });

  it("loads as CJS, and PagelogError instanceof works across the two builds", () => {
    const out = node([
      "--input-type=module",
      "-e",
      `
      import { createRequire } from "node:module";
      import * as esm from "pagelog";
      const cjs = createRequire(import.meta.url)("pagelog");
      const fromCjs = new cjs.PagelogError("x", "PAGELOG_IO");
      const fromEsm = new esm.PagelogError("x", "PAGELOG_IO");
      console.log(JSON.stringify([cjs.PagelogError === esm.PagelogError, fromCjs instanceof esm.PagelogError, fromEsm instanceof cjs.PagelogError, typeof cjs.SimStorage]));
      `,
    ]);
    expect(JSON.parse(out)).toEqual([false, true, true, "function"]);
  });

  it("holds pagelog and @node-rs/crc32 only: no test runner (nor crc-32) can be found from the project", () => {
    expect(readdirSync(join(project, "node_modules")).sort()).toEqual(["@node-rs", "pagelog"]);
    expect(readdirSync(join(project, "node_modules/@node-rs"))).toEqual(["crc32"]);
    const out = node([
      "--input-type=module",
      "-e",
      `
      const codes = [];
      for (const tool of ["vitest", "fast-check", "jest", "@jest/globals", "crc-32"]) {
        codes.push(await import(tool).then(() => "found", (e) => e.code));
      }
      console.log(JSON.stringify(codes));
      `,
    ]);
    expect(JSON.parse(out)).toEqual(Array(5).fill("ERR_MODULE_NOT_FOUND"));
  });

  it("exposes pagelog/testing through the exports map for both conditions, and loads it without a test runner", () => {
    const out = node([
      "--input-type=module",
      "-e",
      `
      import { createRequire } from "node:module";
      const require = createRequire(import.meta.url);
      const esm = await import("pagelog/testing");
      const cjs = require("pagelog/testing");
      const api = (m) => [m.storageContract, m.crashTest, m.pagelogAdapter, m.CrashTestError].map((f) => typeof f);
      const esmFile = import.meta.resolve("pagelog/testing").endsWith("dist/testing.js");
      const cjsFile = require.resolve("pagelog/testing").endsWith("dist/testing.cjs");
      console.log(JSON.stringify([esmFile, cjsFile, api(esm), api(cjs)]));
      `,
    ]);
    const functions = ["function", "function", "function", "function"];
    expect(JSON.parse(out)).toEqual([true, true, functions, functions]);
  });

  it("pagelog/testing's built files name no test runner and no dev dependency", () => {
    const dist = join(project, "node_modules/pagelog/dist");
    const manifest = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { devDependencies: object };
    const devDependencies = Object.keys(manifest.devDependencies);
    // testing.js, testing.cjs and every chunk testing.js imports, transitively.
    const files = ["testing.cjs"];
    for (const pending = ["testing.js"]; pending.length > 0;) {
      const file = pending.pop()!;
      if (files.includes(file)) continue;
      files.push(file);
      const code = readFileSync(join(dist, file), "utf8");
      for (const [, chunk] of code.matchAll(/from\s*"\.\/([^"]+)"/g)) pending.push(chunk!);
    }
    for (const file of files) {
      const code = readFileSync(join(dist, file), "utf8");
      expect(code, file).not.toMatch(/vitest|fast-check/);
      for (const tool of [...devDependencies, "node:test", "jest", "@jest/globals"]) {
        const quoted = tool.replace(/[/.-]/g, "\\$&");
        const specifier = new RegExp(`(from\\s*|import\\s*\\(\\s*|require\\s*\\(\\s*)["']${quoted}(/[^"']*)?["']`);
        expect(code, `${file} imports ${tool}`).not.toMatch(specifier);
      }
    }
  });

  it("runs storageContract and crashTest under node --test, with only pagelog installed", () => {
    // As many tests as the contract registers, counted with a runner that only counts.
    let contractTests = 0;
    storageContract("counted", () => ({ storage: undefined as never }), {
      describe: (_name, fn) => fn(),
      it: () => void contractTests++,
    });
    expect(contractTests).toBeGreaterThanOrEqual(75);
    writeFileSync(
      join(project, "contract.test.mjs"),
      `
      import assert from "node:assert/strict";
      import { describe, it } from "node:test";
      import { SimStorage } from "pagelog";
      import { crashTest, pagelogAdapter, storageContract } from "pagelog/testing";

      storageContract("sim", () => new SimStorage({ seed: 1 }), { describe, it });

      describe("crashTest", () => {
        it("pagelog's own Log keeps every promise through 20 schedules of power cuts", async () => {
          const summary = await crashTest(pagelogAdapter(), { seed: 1, schedules: 20 });
          assert.equal(summary.schedules, 20);
          assert.ok(summary.powerCuts >= 20);
          assert.deepEqual(summary.violations, []);
        });
      });
      `,
    );
    const { NODE_PATH: _, ...env } = process.env;
    const run = spawnSync(process.execPath, ["--test", "--test-reporter=tap", "contract.test.mjs"], {
      cwd: project,
      encoding: "utf8",
      env,
    });
    // The TAP summary: "# tests 76", "# pass 76", "# fail 0", …
    const counts = run.stdout.matchAll(/^# (tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$/gm);
    const summary = Object.fromEntries([...counts].map((m) => [m[1], Number(m[2])]));
    expect({ status: run.status, ...summary }, run.stdout.slice(-4000) + run.stderr).toMatchObject({
      status: 0,
      tests: contractTests + 1,
      pass: contractTests + 1,
      fail: 0,
      cancelled: 0,
      skipped: 0,
      todo: 0,
    });
  });

  it("in Node, the root is the node entry for ESM and CJS: FsStorage and LogDir.open(path); pagelog/format and pagelog/fs resolve too", () => {
    const dir = join(project, "node-condition-data");
    const out = node([
      "--input-type=module",
      "-e",
      `
      import { createRequire } from "node:module";
      import { LogDir, FsStorage } from "pagelog";
      import { encodeBatch, Segment } from "pagelog/format";
      import { FsStorage as FsFromSubpath } from "pagelog/fs";
      const require = createRequire(import.meta.url);
      const cjs = require("pagelog");
      let dir = await LogDir.open(${JSON.stringify(dir)});
      await (await dir.log("t-0")).append([{ value: "esm" }]);
      await dir.close();
      dir = await cjs.LogDir.open(${JSON.stringify(dir)});
      const read = await (await dir.log("t-0")).read(0);
      await dir.close();
      // The lazy parts (docs/entry-points.md), loaded by import() in each build: ESM chunks, CJS inlined
      // (the cleaner, the topics, read-only, the loader and truncation).
      const lazyParts = [];
      for (const [Dir, n] of [[LogDir, 1], [cjs.LogDir, 2]]) {
        dir = await Dir.open(${JSON.stringify(dir)});
        const compacted = await dir.log("c-" + n, { cleanupPolicy: "compact" });
        await compacted.append([{ key: "k", value: "v" }]);
        lazyParts.push((await compacted.compact()).cleanPoint);
        // A reopen (the loader) and a cut (truncation): t-0 ends where it did.
        const reopened = await dir.log("t-0");
        await reopened.append([{ value: "cut" }]);
        await reopened.truncateTo(reopened.endOffset - 1);
        lazyParts.push(reopened.endOffset);
        await (await dir.topic("e" + n)).append([{ value: "t" }]);
        await dir.close();
        dir = await Dir.open(${JSON.stringify(dir)}, { readOnly: true });
        lazyParts.push((await dir.log("t-0")).endOffset);
        await dir.close();
      }
      console.log(JSON.stringify([
        import.meta.resolve("pagelog").endsWith("dist/node.js"), require.resolve("pagelog").endsWith("dist/node.cjs"),
        FsFromSubpath === FsStorage, typeof cjs.FsStorage, typeof require("pagelog/fs").FsStorage,
        typeof encodeBatch, typeof Segment, typeof require("pagelog/format").decodeBatch, read.length, lazyParts,
      ]));
      `,
    ]);
    expect(JSON.parse(out)).toEqual([
      ...[true, true, true, "function", "function", "function", "function", "function", 1],
      // Each compact() cleans nothing yet (one segment), each cut leaves t-0 its one record, each
      // read-only open sees it.
      [0, 1, 1, 0, 1, 1],
    ]);
  });

  it("uses the native CRC-32C from the ESM and CJS builds, with no warning; the browser build never loads it", () => {
    const run = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `
        import { createRequire } from "node:module";
        import { crc32cInUse } from "pagelog";
        import { crc32c } from "pagelog/format";
        const require = createRequire(import.meta.url);
        const cjs = require("pagelog");
        const big = new Uint8Array(100_000).map((_, i) => i * 31);
        // pagelog/format's CJS build is a bundle of its own, which no Node entry switched: the table.
        const table = require("pagelog/format").crc32c;
        console.log(JSON.stringify([crc32cInUse(), cjs.crc32cInUse(), crc32c(big) === table(big)]));
        `,
      ],
      { cwd: project, encoding: "utf8" },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toBe("");
    const native = { kind: "native", label: "@node-rs/crc32 1.10.8", fromBytes: expect.any(Number) };
    expect(JSON.parse(run.stdout)).toEqual([native, native, true]);
    for (const build of ["index.js", "index.cjs", "format.js", "format.cjs"])
      expect(readFileSync(join(project, "node_modules/pagelog/dist", build), "utf8")).not.toContain("@node-rs/crc32");
  });

  it("without @node-rs/crc32: the pure-JS CRC-32C, one PAGELOG_CRC32C_FALLBACK warning for ESM and CJS together, and logs work", () => {
    const installed = join(project, "node_modules/@node-rs");
    const hidden = join(project, "node_modules/.hidden-node-rs");
    renameSync(installed, hidden);
    try {
      const run = spawnSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `
          import { createRequire } from "node:module";
          import { crc32cInUse, LogDir } from "pagelog";
          const cjs = createRequire(import.meta.url)("pagelog");
          const dir = await LogDir.open(${JSON.stringify(join(project, "no-native-data"))});
          const log = await dir.log("n-0");
          await log.append(Array.from({ length: 100 }, (_, i) => ({ value: "v".repeat(1000) + i })));
          const read = await log.read(0, { maxRecords: 1000 });
          await dir.close();
          console.log(JSON.stringify([crc32cInUse().kind, cjs.crc32cInUse().kind, read.length]));
          `,
        ],
        { cwd: project, encoding: "utf8" },
      );
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual(["js", "js", 100]);
      const warnings = run.stderr.split("\n").filter((line) => line.includes("PAGELOG_CRC32C_FALLBACK"));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/Warning: pagelog uses its pure-JS CRC-32C .*: @node-rs\/crc32 is not installed/);
    } finally {
      renameSync(hidden, installed);
    }
  });

  it("a browser bundle of the packed root takes the browser-clean build; a Node bundle keeps LogDir.open(path)", async () => {
    const { build } = await import("esbuild");
    const common = { absWorkingDir: project, bundle: true, format: "esm", logLevel: "silent" } as const;
    const stdin = (contents: string) => ({ contents, resolveDir: project });
    const browser = await build({
      ...common,
      stdin: stdin('export { LogDir, SimStorage } from "pagelog";'),
      platform: "browser",
      write: false,
      metafile: true,
    });
    const inputs = Object.keys(browser.metafile.inputs);
    expect(inputs).toContain("node_modules/pagelog/dist/index.js");
    expect(inputs.filter((i) => i.startsWith("node:") || /dist\/(node|fs)\./.test(i))).toEqual([]);
    // package.json marks dist/node.js as having side effects, so a bundle for Node keeps its opener.
    const source = `import { LogDir } from "pagelog";
      const dir = await LogDir.open(process.argv[2]);
      await (await dir.log("b-0")).append([{ value: "bundled" }]);
      await dir.close();
      console.log("opened a path");`;
    await build({
      ...common,
      stdin: stdin(source),
      platform: "node",
      minify: true,
      outfile: join(project, "node-bundle.mjs"),
    });
    expect(node(["node-bundle.mjs", join(project, "bundled-data")])).toBe("opened a path\n");
  });

  it("types resolve for ESM and CJS consumers under node16 resolution, and under bundler resolution", () => {
    writeFileSync(
      join(project, "types-esm.mts"),
      `import { LogDir, FsStorage, SimStorage, randomChooser, type ErrorCode } from "pagelog";
      import { encodeBatch, Segment, type RecordInput } from "pagelog/format";
      import { FsStorage as Fs } from "pagelog/fs";
      const code: ErrorCode = "PAGELOG_IO";
      const records: RecordInput[] = [{ value: "x" }];
      export const used = [LogDir.open, FsStorage.open, Fs.open, new SimStorage().crash(randomChooser(7)), encodeBatch, Segment, code, records];
      `,
    );
    writeFileSync(
      join(project, "types-cjs.cts"),
      `import pagelog = require("pagelog");
      import format = require("pagelog/format");
      export const used = [pagelog.LogDir.open, pagelog.FsStorage.open, format.decodeBatch];
      `,
    );
    // Bundler resolution applies no "node" condition: the root's types are the browser-clean ones.
    writeFileSync(
      join(project, "types-bundler.ts"),
      `import { LogDir, SimStorage } from "pagelog";
      import { FsStorage } from "pagelog/fs";
      export const used = [LogDir.open(new SimStorage()), FsStorage.open];
      `,
    );
    const tsc = join(repo, "node_modules/typescript/bin/tsc");
    const flags = [
      "--noEmit",
      "--strict",
      "--target",
      "es2022",
      "--skipLibCheck",
      "false",
      "--types",
      "node",
      "--typeRoots",
      join(repo, "node_modules/@types"),
    ];
    node([tsc, ...flags, "--module", "node16", "--moduleResolution", "node16", "types-esm.mts", "types-cjs.cts"]);
    node([tsc, ...flags, "--module", "esnext", "--moduleResolution", "bundler", "types-bundler.ts"]);
  });

  it("runs pagelog fuzz, demo and check on a reader's module that imports pagelog/course", () => {
    const bin = join(project, "node_modules/pagelog/dist/cli.js");
    writeFileSync(
      join(project, "my-policies.mjs"),
      [
        'import { kafkaPolicies } from "pagelog/course";',
        "export const { writeVarint, lookup } = kafkaPolicies;",
        "// trusts each length, never the CRC",
        "export function recover(log, { readInt32 }) {",
        "  let pos = 0;",
        "  while (log.length - pos >= 17) {",
        "    const length = readInt32(log, pos + 8);",
        "    if (length < 49 || pos + 12 + length > log.length || log[pos + 16] !== 2) break;",
        "    pos += 12 + length;",
        "  }",
        "  return pos;",
        "}",
      ].join("\n"),
    );
    const fuzz = spawnSync(
      process.execPath,
      [bin, "fuzz", "--policies", "./my-policies.mjs", "--runs", "300", "--seed", "1"],
      {
        cwd: project,
        encoding: "utf8",
      },
    );
    expect(fuzz.status).toBe(1);
    expect(fuzz.stdout).toContain("running on: your writeVarint, lookup, recover");
    expect(fuzz.stdout).toMatch(/replay: npx pagelog fuzz --policies \.\/my-policies\.mjs --replay \d+ --steps /);
    const demo = node([
      bin,
      "demo",
      "--policies",
      "./my-policies.mjs",
      "--script",
      "produce 4, writeback, produce 2, cut, restart",
    ]);
    expect(demo).toMatch(/BROKEN: your recover kept \d+ bytes/);
    const check = spawnSync(process.execPath, [bin, "check", "--policies", "./my-policies.mjs"], {
      cwd: project,
      encoding: "utf8",
    });
    expect(check.status).toBe(1);
    expect(check.stdout).toMatch(/FAIL  recover: .*trusts the length without checking the CRC/);
    // A policy that never returns fails its cases in its own worker thread, instead of hanging.
    writeFileSync(
      join(project, "loops.mjs"),
      "export function writeVarint(value) {\n  let n = 0;\n  for (let v = value; v !== 0; v >>= 7) n++;\n  return [n];\n}\n",
    );
    const loops = spawnSync(process.execPath, [bin, "check", "--policies", "./loops.mjs", "--timeout", "2"], {
      cwd: project,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(loops.status).toBe(1);
    expect(loops.stdout).toMatch(/FAIL {2}writeVarint: did not finish its cases within 2 s: an infinite loop\?/);
    // fuzz (and demo) run policies in their own thread: they refuse one that would hang them.
    const fuzzLoops = spawnSync(process.execPath, [bin, "fuzz", "--policies", "./loops.mjs", "--runs", "5"], {
      cwd: project,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(fuzzLoops.status).toBe(2);
    expect(fuzzLoops.stderr).toMatch(
      /your writeVarint did not finish the course's cases within 10 s \(an infinite loop\?\)/,
    );
  });

  it("pagelog/kafka without its optional peer kafkajs: mirror() is PAGELOG_MISSING_DEPENDENCY naming it (ESM and CJS), pagelog mirror exits 2 with that line", () => {
    mkdirSync(join(project, "mirror-src"), { recursive: true });
    const esm = node([
      "--input-type=module",
      "-e",
      `
      import { mirror } from "pagelog/kafka";
      const err = await mirror({ logDir: "mirror-src", source: "a-0", brokers: ["127.0.0.1:1"], topic: "t" }).catch((e) => e);
      console.log(JSON.stringify([err.name, err.code, err.message]));
      `,
    ]);
    const [name, code, message] = JSON.parse(esm) as [string, string, string];
    expect([name, code]).toEqual(["PagelogError", "PAGELOG_MISSING_DEPENDENCY"]);
    expect(message).toMatch(/needs the package kafkajs.*npm install kafkajs/);
    const cjs = node([
      "-e",
      `require("pagelog/kafka").mirror({ logDir: "mirror-src", source: "a-0", brokers: ["127.0.0.1:1"], topic: "t" })
        .catch((e) => console.log(e.code));`,
    ]);
    expect(cjs.trim()).toBe("PAGELOG_MISSING_DEPENDENCY");
    let failure: { status: number; stderr: string } | undefined;
    try {
      node([
        join(project, "node_modules/pagelog/dist/cli.js"),
        "mirror",
        "mirror-src",
        "a-0",
        "--brokers",
        "127.0.0.1:1",
        "--topic",
        "t",
      ]);
    } catch (err) {
      failure = err as { status: number; stderr: string };
    }
    expect(failure?.status).toBe(2);
    expect(failure?.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^pagelog mirror: .*npm install kafkajs$/),
    ]);
  });

  it("runs the pagelog binary: --help exits 0, an unknown command exits non-zero with one line", () => {
    const bin = join(project, "node_modules/pagelog/dist/cli.js");
    expect(node([bin, "--help"])).toMatch(/pagelog <command>/);
    let failure: { status: number; stderr: string } | undefined;
    try {
      node([bin, "nonsense"]);
    } catch (err) {
      failure = err as { status: number; stderr: string };
    }
    expect(failure?.status).not.toBe(0);
    expect(failure?.stderr.trim().split("\n")).toHaveLength(1);
  });
});

it("the README's quick start runs as written against the packed package", () => {
  const readme = readFileSync(join(repo, "README.md"), "utf8");
  const section = /## Quick start\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? "";
  const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(blocks).toHaveLength(2);
  // The first: a real directory, run twice (the second run appends a second record).
  writeFileSync(join(project, "quick-start.mjs"), blocks[0]!);
  expect(node(["quick-start.mjs"])).toMatch(/^0 hello\n0 0 1 \d+ 1\n$/);
  expect(node(["quick-start.mjs"])).toMatch(/^0 hello\n1 hello\n1 1 2 \d+ 2\n$/);
  // The second: the simulator, a power cut, recovery.
  writeFileSync(join(project, "quick-start-sim.mjs"), blocks[1]!);
  expect(node(["quick-start-sim.mjs"])).toMatch(/^true /);
});

// The package must not reach into the repository's test fixtures at run time.
it("the built package does not mention the test fixtures", () => {
  const dist = join(project, "node_modules/pagelog/dist");
  for (const file of readdirSync(dist).filter((f) => f.endsWith(".js") || f.endsWith(".cjs"))) {
    expect(readFileSync(join(dist, file), "utf8"), file).not.toMatch(/fixtures\/kafka|\.bin["'`]/);
  }
});

// The suites share one tarball, kept under this key: a stale key would test an old package.
it("the kept tarball's key moves with every file npm packs, and with no other", () => {
  const root = mkdtempSync(join(tmpdir(), "pagelog-pack-key-"));
  try {
    const write = (path: string, text: string) => {
      mkdirSync(join(root, path, ".."), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    write("package.json", JSON.stringify({ name: "fixture", files: ["dist", "docs"] }));
    write("dist/a/index.js", "1");
    write("docs/x.md", "x");
    write("README.md", "r");
    write("src/a.ts", "s");
    const keys = [packedContentKey(root)];
    for (const [path, text] of [
      ["dist/a/index.js", "2"],
      ["dist/b.js", ""],
      ["docs/x.md", "y"],
      ["README.md", "R"],
      ["LICENSE", "MIT"],
      ["package.json", JSON.stringify({ name: "fixture", files: ["dist", "docs"], version: "1.0.0" })],
    ] as const) {
      write(path, text);
      keys.push(packedContentKey(root));
    }
    expect(new Set(keys).size).toBe(keys.length);
    // What npm leaves out of the tarball leaves the key alone.
    write("src/a.ts", "changed");
    write("notes.txt", "n");
    expect(packedContentKey(root)).toBe(keys.at(-1));
    // A file moved from one name to another is a different tarball.
    renameSync(join(root, "dist/b.js"), join(root, "dist/c.js"));
    expect(packedContentKey(root)).not.toBe(keys.at(-1));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
