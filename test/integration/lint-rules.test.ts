/**
 * The type-aware lint (eslint.config.mjs) catches what it is there for: planted mistakes, each a
 * bug class of a storage library (a floating fsync, an async callback, a thrown string), are
 * reported by the project's own rule set, and `npm run lint` runs it. An integration test: it
 * builds a TypeScript program, a few seconds of CPU.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ESLint, type Linter } from "eslint";
import { afterAll, describe, expect, it } from "vitest";
import { LANES, missingChecks } from "../../scripts/lint-lanes.mjs";

const ROOT = resolve(import.meta.dirname, "../..");
const scratch = mkdtempSync(join(tmpdir(), "pagelog-lint-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The project's block for src/ (its parser, plugin and rules), aimed at a scratch project. */
async function projectRules(): Promise<Linter.Config> {
  const url = pathToFileURL(join(ROOT, "eslint.config.mjs")).href;
  const { default: configs } = (await import(url)) as { default: Linter.Config[] };
  const block = configs.find((c) => c.files?.includes("src/**/*.ts"));
  if (block === undefined) throw new Error("eslint.config.mjs has no block for src/**/*.ts");
  return {
    ...block,
    files: ["**/*.ts"],
    languageOptions: {
      ...block.languageOptions,
      parserOptions: { projectService: true, tsconfigRootDir: scratch },
    },
  };
}

const PLANTED = `
interface File { sync(): Promise<void>; close(): Promise<void> }
type Kind = "a" | "b";
export function floating(file: File): void {
  file.sync();
}
export function misused(file: File, on: (cb: () => void) => void): void {
  on(async () => file.close());
}
export async function notThenable(n: number): Promise<number> {
  const m = await n;
  return m;
}
export function thrown(): never {
  throw "no space left";
}
export function rejected(): Promise<void> {
  return Promise.reject("no space left");
}
export function unhandled(kind: Kind): number {
  switch (kind) {
    case "a":
      return 1;
  }
  return 0;
}
export function cast(n: number): number {
  return n as number;
}
export async function escapes(file: File): Promise<void> {
  try {
    return file.sync();
  } catch {
    // never reached: the rejection skips this catch
  }
}
export function rethrow(err: unknown): never {
  throw err;
}
`;

describe("npm run lint: the type-aware rules", () => {
  it("npm run lint runs eslint after prettier (scripts/lint-lanes.mjs), and refuses lanes without it", () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(scripts.lint).toBe("node scripts/lint-lanes.mjs");
    expect(missingChecks(LANES)).toEqual([]);
    const withoutEslint = LANES.map((lane) => lane.filter(([label]) => label !== "eslint"));
    expect(missingChecks(withoutEslint)).toEqual(["/^eslint \\.$/", "prettier before eslint in one lane"]);
    const eslintFirst = [[...LANES[0]!].reverse(), LANES[1]!];
    expect(missingChecks(eslintFirst)).toEqual(["prettier before eslint in one lane"]);
  });

  it("reports each planted promise, throw, switch and cast mistake, and not a rethrown unknown", async () => {
    writeFileSync(
      join(scratch, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { strict: true, target: "ES2022", module: "ESNext", noEmit: true } }),
    );
    writeFileSync(join(scratch, "planted.ts"), PLANTED);
    const eslint = new ESLint({ cwd: scratch, overrideConfigFile: true, overrideConfig: [await projectRules()] });
    const [result] = await eslint.lintFiles(["planted.ts"]);
    const found = (result?.messages ?? []).map((m) => `${m.line} ${m.ruleId ?? m.message}`);
    const lineOf = (text: string) => PLANTED.split("\n").findIndex((l) => l.includes(text)) + 1;
    expect(found.sort()).toEqual(
      [
        `${lineOf("file.sync();")} @typescript-eslint/no-floating-promises`,
        `${lineOf("on(async")} @typescript-eslint/no-misused-promises`,
        `${lineOf("await n;")} @typescript-eslint/await-thenable`,
        `${lineOf('throw "no space')} @typescript-eslint/only-throw-error`,
        `${lineOf('Promise.reject("no')} @typescript-eslint/prefer-promise-reject-errors`,
        `${lineOf("switch (kind)")} @typescript-eslint/switch-exhaustiveness-check`,
        `${lineOf("n as number")} @typescript-eslint/no-unnecessary-type-assertion`,
        `${lineOf("return file.sync()")} @typescript-eslint/return-await`,
      ].sort(),
    );
  });
});
