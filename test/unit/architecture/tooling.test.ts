/**
 * The settings that hold the code's habits. .editorconfig and prettier must agree, or an editor saves what `npm run lint` then rejects.
 * Prettier reads .editorconfig itself; here it reads it alone (with an empty prettier config) and
 * each setting must equal what prettier really uses: .prettierrc.json's value or its default.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as prettier from "prettier";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const scratch = mkdtempSync(join(tmpdir(), "pagelog-editorconfig-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const emptyConfig = join(scratch, "empty.json");
writeFileSync(emptyConfig, "{}");

describe(".editorconfig", () => {
  for (const file of ["src/index.ts", "test/unit/architecture/layers.test.ts", "web/build.mjs", "README.md"]) {
    it(`says what prettier does for ${file}`, async () => {
      const path = join(ROOT, file);
      const fromEditorconfig = (await prettier.resolveConfig(path, { editorconfig: true, config: emptyConfig })) ?? {};
      const fromPrettierrc = (await prettier.resolveConfig(path, { editorconfig: false })) ?? {};
      const defaults = Object.fromEntries(
        (await prettier.getSupportInfo()).options.map((option) => [option.name, option.default]),
      );
      // Width, indent and line ends: the settings both files can state.
      for (const key of ["printWidth", "tabWidth", "useTabs", "endOfLine"]) {
        expect({ key, value: fromEditorconfig[key as keyof typeof fromEditorconfig] }).toEqual({
          key,
          value: fromPrettierrc[key as keyof typeof fromPrettierrc] ?? defaults[key],
        });
      }
    });
  }
});

describe("tsconfig.json", () => {
  // tsc --noEmit (in npm test) then fails on an unused import, local or parameter (`_x` opts out).
  it("reports unused locals and parameters", () => {
    const { compilerOptions } = JSON.parse(readFileSync(join(ROOT, "tsconfig.json"), "utf8")) as {
      compilerOptions: Record<string, unknown>;
    };
    expect({
      noUnusedLocals: compilerOptions.noUnusedLocals,
      noUnusedParameters: compilerOptions.noUnusedParameters,
    }).toEqual({
      noUnusedLocals: true,
      noUnusedParameters: true,
    });
  });
});
