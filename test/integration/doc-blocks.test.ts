/**
 * Every code block of the README and docs/ that a reader may copy and run does run, as written,
 * against the packed package: each ```js and ```ts block is type-checked under `strict` (js
 * blocks with `checkJs`, as an editor checks them), once with `module: nodenext` and once with
 * `moduleResolution: bundler`, and then run with `node` in a directory of its own.
 *
 * The conventions, for whoever writes docs:
 * - ```js and ```ts blocks run. ```js no-run / ```ts no-run (or a line `<!-- no-run -->` just
 *   before the block) marks one that is not a whole program: a signature, an interface, a file
 *   that imports the reader's own module (`./my-storage.js`) or a package pagelog does not install.
 * - A block whose first line is a comment naming a file (`// my-log.mjs`, `// power-cuts.mjs: …`)
 *   is written under that name, so that the doc's other blocks can import it.
 * - A plain ``` block that starts with `$ node <file> [args]`, where `<file>` is a block of the
 *   same doc, is that program's output: it is run with those arguments and must print exactly the
 *   block's lines (a line `…` stands for any number of lines). The block itself then runs only there.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packedProject, repo, tsc } from "../support/packed-project.js";

interface CodeBlock {
  doc: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  flags: string[];
  code: string;
}

interface Program extends CodeBlock {
  file: string;
}

interface Sample {
  program: Program;
  args: string[];
  expected: string[];
  line: number;
}

const DOCS = [
  "README.md",
  ...readdirSync(join(repo, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
const RUNNABLE = new Set(["js", "ts"]);

function codeBlocks(doc: string): CodeBlock[] {
  return parseBlocks(doc, readFileSync(join(repo, doc), "utf8"));
}

function parseBlocks(doc: string, text: string): CodeBlock[] {
  const lines = text.split("\n");
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)(.*)$/.exec(lines[i]!);
    if (open === null) continue;
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
    if (end === -1) throw new Error(`${doc}:${i + 1}: unclosed code block`);
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === "") before--;
    const marked = before >= 0 && /^<!--\s*no-run\s*-->$/.test(lines[before]!.trim());
    blocks.push({
      doc,
      line: i + 1,
      lang: open[1]!,
      flags: [...open[2]!.trim().split(/\s+/).filter(Boolean), ...(marked ? ["no-run"] : [])],
      code: lines.slice(i + 1, end).join("\n") + "\n",
    });
    i = end;
  }
  return blocks;
}

/** The file a block is written to: the name its first line's comment gives, else one from its line. */
function fileOf(block: CodeBlock): string {
  const named = /^\/\/ ([\w.-]+\.(?:mjs|cjs|js|mts|cts|ts))(?::|\s*$)/.exec(block.code.split("\n")[0]!)?.[1];
  return named ?? `block-${block.line}.${block.lang === "ts" ? "mts" : "mjs"}`;
}

const blocks = DOCS.flatMap(codeBlocks);
const programs: Program[] = blocks
  .filter((b) => RUNNABLE.has(b.lang) && !b.flags.includes("no-run"))
  .map((b) => ({ ...b, file: fileOf(b) }));

function samplesOf(doc: string): Sample[] {
  const samples: Sample[] = [];
  for (const block of blocks.filter((b) => b.doc === doc && b.lang === "")) {
    const [command, ...expected] = block.code.trimEnd().split("\n");
    const m = /^\$ node (\S+)(.*)$/.exec(command!);
    if (m === null) continue;
    const program = programs.find((p) => p.doc === doc && p.file === m[1]);
    if (program === undefined) continue;
    samples.push({ program, args: m[2]!.trim().split(/\s+/).filter(Boolean), expected, line: block.line });
  }
  return samples;
}

const samples = DOCS.flatMap(samplesOf);

let project: string;

beforeAll(() => {
  project = packedProject("pagelog-doc-blocks-");
  // Each doc's programs in a directory of their own, where the doc's named files find each other.
  for (const p of programs) {
    const dir = join(project, "docs", p.doc.replace(/\W/g, "_"));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, p.file), p.code);
  }
}, 600_000);

afterAll(() => {
  if (project !== undefined) rmSync(project, { recursive: true, force: true });
});

/** `docs/x.md:12` for a type error in the file written from the block at line 12, at its line. */
function whereIs(diagnostic: string): string {
  const m = /^(\w+)\/([^(]+)\((\d+),(\d+)\)/.exec(diagnostic);
  const program = m && programs.find((p) => p.doc.replace(/\W/g, "_") === m[1] && p.file === m[2]);
  return program ? `${program.doc}:${program.line + Number(m[3])}: ${diagnostic}` : diagnostic;
}

// No `lib`: target es2022's default, which has the DOM's TextDecoder (whose decode() refuses
// null, unlike @types/node's): what `tsc --strict` gives a reader who set only `module`.
const CONFIGS = {
  "module nodenext": { module: "nodenext", moduleResolution: "nodenext" },
  "moduleResolution bundler": { module: "preserve", moduleResolution: "bundler" },
};

/** A js or ts program as node runs it: js as is, ts with its types stripped. */
async function runnable(p: Program): Promise<{ file: string; code: string }> {
  if (p.lang === "js") return { file: p.file, code: p.code };
  const { transform } = await import("esbuild");
  const { code } = await transform(p.code, { loader: "ts", format: "esm", target: "node20" });
  return { file: p.file.replace(/\.m?ts$/, ".mjs"), code };
}

/** A fresh directory holding every program of the doc (other blocks may import them): returns it. */
async function workspace(p: Program, name: string): Promise<string> {
  const dir = join(project, "runs", `${p.doc.replace(/\W/g, "_")}-${p.line}-${name}`);
  mkdirSync(dir, { recursive: true });
  for (const other of programs.filter((o) => o.doc === p.doc)) {
    const { file, code } = await runnable(other);
    writeFileSync(join(dir, file), code);
  }
  return dir;
}

function run(dir: string, file: string, args: string[] = []) {
  const { NODE_PATH: _, ...env } = process.env;
  return spawnSync(process.execPath, [file, ...args], {
    cwd: dir,
    encoding: "utf8",
    timeout: 180_000,
    env: { ...env, NO_COLOR: "1" },
  });
}

/** `actual` is `expected` line by line, where a line `…` of `expected` stands for any lines. */
function matchesSample(actual: string[], expected: string[], whole = true): boolean {
  const chunks: string[][] = [[]];
  for (const line of expected) {
    if (line.trim() === "…") chunks.push([]);
    else chunks.at(-1)!.push(line);
  }
  const at = (chunk: string[], i: number) => chunk.every((l, k) => actual[i + k] === l);
  let i = 0;
  for (const [c, chunk] of chunks.entries()) {
    const last = c === chunks.length - 1;
    if (c === 0 && whole) {
      if (!at(chunk, 0)) return false;
      i = chunk.length;
      continue;
    }
    if (last && whole) return actual.length - chunk.length >= i && at(chunk, actual.length - chunk.length);
    let j = i;
    while (j + chunk.length <= actual.length && !at(chunk, j)) j++;
    if (j + chunk.length > actual.length) return false;
    i = j + chunk.length;
  }
  return !whole || i === actual.length;
}

describe("the code blocks of the README and docs/", () => {
  it("are found: the README's quick start and the docs' programs, each in a file of its own", () => {
    const files = programs.map((p) => `${p.doc}:${p.file}`);
    expect(new Set(files).size).toBe(files.length);
    expect(programs.filter((p) => p.doc === "README.md").length).toBeGreaterThanOrEqual(2);
    // The API reference's examples (a follower, the page cache at the storage level) run too.
    expect(programs.filter((p) => p.doc === "docs/api.md").length).toBeGreaterThanOrEqual(2);
    expect(files).toEqual(expect.arrayContaining(["docs/testing.md:my-log.mjs", "docs/testing.md:crash-my-log.mjs"]));
  });

  it.each(Object.entries(CONFIGS))("type-check under --strict with %s", (name, options) => {
    const dir = join(project, "docs");
    const config = {
      compilerOptions: {
        ...options,
        strict: true,
        target: "es2022",
        noEmit: true,
        allowJs: true,
        checkJs: true,
        skipLibCheck: true,
        types: ["node"],
        typeRoots: [join(repo, "node_modules/@types")],
      },
      include: ["**/*.mjs", "**/*.js", "**/*.cjs", "**/*.mts", "**/*.ts", "**/*.cts"],
    };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(config));
    const result = spawnSync(process.execPath, [tsc, "-p", dir, "--pretty", "false"], { cwd: dir, encoding: "utf8" });
    const diagnostics = result.stdout.split("\n").filter((l) => l.trim() !== "");
    expect(diagnostics.map(whereIs), name).toEqual([]);
    expect(result.status).toBe(0);
  });

  it.each(programs.map((p) => [`${p.doc}:${p.line} (${p.file})`, p] as const))("%s runs", async (_, p) => {
    const sampled = samples.filter((s) => s.program === p);
    const dir = await workspace(p, "run");
    const { file } = await runnable(p);
    // A program with a sample of its output runs with the sample's arguments, and prints it.
    for (const sample of sampled.length > 0 ? sampled : [undefined]) {
      const result = run(dir, file, sample?.args);
      expect({ status: result.status, signal: result.signal }, result.stderr + result.stdout).toEqual({
        status: 0,
        signal: null,
      });
      if (sample === undefined) continue;
      const actual = result.stdout.trimEnd().split("\n");
      const where = `${p.doc}:${sample.line}: $ node ${p.file} ${sample.args.join(" ")} printed:\n${result.stdout}`;
      expect(matchesSample(actual, sample.expected), where).toBe(true);
    }
  });
});

describe("what the docs say about their programs", () => {
  it("the README's quick start leaves in ./data what the README lists, and nothing else", async () => {
    const [quickStart] = programs.filter((p) => p.doc === "README.md");
    const dir = await workspace(quickStart!, "listing");
    expect(run(dir, quickStart!.file).status).toBe(0);
    const present: string[] = [];
    const walk = (d: string): void => {
      for (const name of readdirSync(d)) {
        const path = join(d, name);
        if (statSync(path).isDirectory()) walk(path);
        else present.push(relative(join(dir, "data"), path));
      }
    };
    walk(join(dir, "data"));
    const readme = readFileSync(join(repo, "README.md"), "utf8");
    const sentence = /After it,\s+`\.\/data` holds ([\s\S]*?)[.;]\s/.exec(readme)?.[1];
    expect(sentence, "the README's sentence 'After it, `./data` holds …'").toBeDefined();
    const listed = [...sentence!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    // `x/y.log` with its `.index`: a name that starts with a dot and is no file of ./data is a
    // suffix of the file listed before it.
    const names = listed.map((name, i) => {
      if (present.includes(name) || !name.startsWith(".")) return name;
      const before = listed
        .slice(0, i)
        .reverse()
        .find((n) => n.includes("/"))!;
      return before.replace(/\.[^./]+$/, name);
    });
    expect(names.sort()).toEqual(present.sort());
  });

  it("the README, up to its Development section, points package users to no src/ file: the package has none", () => {
    const readme = readFileSync(join(repo, "README.md"), "utf8");
    const forUsers = readme.slice(0, readme.indexOf("\n## Development\n"));
    expect(forUsers.length).toBeGreaterThan(1000);
    expect([...forUsers.matchAll(/`?\bsrc\/[\w./-]*`?/g)].map((m) => m[0])).toEqual([]);
  });

  it("docs/testing.md: deleting the CRC check of my-log.mjs makes crashTest print the sample", async () => {
    const crashMyLog = programs.find((p) => p.doc === "docs/testing.md" && p.file === "crash-my-log.mjs")!;
    const dir = await workspace(crashMyLog, "no-crc");
    const myLog = readFileSync(join(dir, "my-log.mjs"), "utf8");
    const withoutCrc = myLog.replace(/^.*!== checksum\(value\)\) break;.*\n/m, "");
    expect(withoutCrc).not.toBe(myLog);
    writeFileSync(join(dir, "my-log.mjs"), withoutCrc);
    // "Run it again": with the arguments of the sample of the program as written.
    const [{ args }] = samples.filter((s) => s.program === crashMyLog) as [Sample];
    const doc = readFileSync(join(repo, "docs/testing.md"), "utf8");
    const sample = /Delete the CRC check and run it again:\n\n```\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(sample).toBeDefined();
    const expected = sample!.trimEnd().split("\n");
    const result = run(dir, "crash-my-log.mjs", args);
    expect(result.status).toBe(1);
    const where = `docs/testing.md's sample; the run printed:\n${result.stderr}`;
    expect(matchesSample(result.stderr.split("\n"), expected, false), where).toBe(true);
  });
});

it("RecordInput.timestamp's published TSDoc says where each writer takes the default from, and each does", () => {
  const dist = join(project, "node_modules/pagelog/dist");
  const file = readdirSync(dist).find(
    (f) => f.endsWith(".d.ts") && readFileSync(join(dist, f), "utf8").includes("interface RecordInput {"),
  );
  const dts = readFileSync(join(dist, file!), "utf8");
  const body = dts.slice(dts.indexOf("interface RecordInput {"));
  const tsdoc = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*timestamp\?: number;/.exec(body.slice(0, body.indexOf("}")))?.[1];
  expect(tsdoc).toBeDefined();
  // append() takes records only: its default is the log's clock; encodeBatch's is its option.
  expect(tsdoc).toMatch(/`log\.append\(\)`[^;]*`clock`/);
  expect(tsdoc).toMatch(/`encodeBatch\(\)`[^;]*`timestamp` option/);
  const script = `
    import { LogDir, SimStorage } from "pagelog";
    import { encodeBatch, decodeBatchSync } from "pagelog/format";
    const dir = await LogDir.open(new SimStorage(), { log: { clock: { now: () => 1234 } } });
    const log = await dir.log("t-0");
    await log.append([{ value: "x" }]);
    const [appended] = await log.read(0);
    const [encoded] = decodeBatchSync(encodeBatch([{ value: "x" }], { baseOffset: 0, timestamp: 99 })).records;
    console.log(appended.timestamp, encoded.timestamp, log.append.length);
    await dir.close();
  `;
  const out = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: project, encoding: "utf8" });
  expect(out.stdout + out.stderr).toBe("1234 99 1\n");
});

it("parseBlocks: a block's language, its no-run mark (info string or comment), its file name", () => {
  const doc = [
    "```js",
    "// a.mjs: runs",
    "```",
    "```ts no-run",
    "f(x: number): number",
    "```",
    "<!-- no-run -->",
    "",
    "```js",
    "await mine();",
    "```",
    "```",
    "$ node a.mjs 1",
    "```",
  ].join("\n");
  const parsed = parseBlocks("x.md", doc);
  expect(parsed.map((b) => [b.line, b.lang, b.flags])).toEqual([
    [1, "js", []],
    [4, "ts", ["no-run"]],
    [9, "js", ["no-run"]],
    [12, "", []],
  ]);
  expect(parsed.map(fileOf)).toEqual(["a.mjs", "block-4.mts", "block-9.mjs", "block-12.mjs"]);
});

it("matchesSample: `…` stands for any lines, and every other line must be there, in order", () => {
  const out = ["a", "b", "c", "d"];
  expect(matchesSample(out, ["a", "…", "d"])).toBe(true);
  expect(matchesSample(out, ["a", "b", "c", "d"])).toBe(true);
  expect(matchesSample(out, ["a", "…", "c"])).toBe(false);
  expect(matchesSample(out, ["a", "c", "…", "d"])).toBe(false);
  expect(matchesSample(out, ["a", "b"])).toBe(false);
  expect(matchesSample(out, ["b", "c"], false)).toBe(true);
  expect(matchesSample(out, ["b", "…", "d"], false)).toBe(true);
  expect(matchesSample(out, ["c", "b"], false)).toBe(false);
});
