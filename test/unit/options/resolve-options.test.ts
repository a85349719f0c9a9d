/**
 * The one resolver every options object goes through (src/options.ts): a plain object, known
 * keys only (a typo names itself, the known keys and the nearest one), each field resolved by
 * its own check, `undefined` meaning the default.
 */
import { describe, expect, it } from "vitest";
import { checkKnownKeys, resolveOptions } from "../../../src/options.js";

interface Sample {
  maxOpenFiles?: number;
  log?: string;
  checkpointIntervalMs?: number;
}

const RESOLVERS = {
  maxOpenFiles: (value: unknown) => (value === undefined ? 128 : (value as number)),
  log: (value: unknown) => (value === undefined ? "none" : String(value)),
  checkpointIntervalMs: (value: unknown) => {
    if (value !== undefined && typeof value !== "number") throw new TypeError("option checkpointIntervalMs: a number");
    return value === undefined ? 60_000 : value;
  },
};

function resolve(options: unknown): Required<Sample> {
  return resolveOptions<Sample>(options as Sample, "Sample.open options", RESOLVERS);
}

function errorOf(action: () => unknown): TypeError {
  try {
    action();
  } catch (err) {
    expect(err).toBeInstanceOf(TypeError);
    return err as TypeError;
  }
  throw new Error("expected a TypeError");
}

describe("resolveOptions", () => {
  it("fills every default, keeps given values, and treats an undefined value as absent", () => {
    expect(resolve(undefined)).toEqual({ maxOpenFiles: 128, log: "none", checkpointIntervalMs: 60_000 });
    expect(resolve({})).toEqual({ maxOpenFiles: 128, log: "none", checkpointIntervalMs: 60_000 });
    expect(resolve({ maxOpenFiles: 4, log: undefined })).toEqual({
      maxOpenFiles: 4,
      log: "none",
      checkpointIntervalMs: 60_000,
    });
  });

  it("an unknown key is a TypeError naming it, what it is an option of, and every known key", () => {
    const err = errorOf(() => resolve({ maxOpenFile: 4 }));
    expect(err.message).toBe(
      'Sample.open options: unknown option "maxOpenFile" (did you mean "maxOpenFiles"?); known: maxOpenFiles, log, checkpointIntervalMs',
    );
  });

  it("an unknown key is refused even when its value is undefined, and before any field is resolved", () => {
    expect(errorOf(() => resolve({ maxOpenFile: undefined })).message).toContain('"maxOpenFile"');
    // The bad field comes first, but the typo is what the message names.
    expect(errorOf(() => resolve({ checkpointIntervalMs: "x", lgo: 1 })).message).toContain('unknown option "lgo"');
  });

  it("suggests the nearest known key within edit distance 2 (case aside), and none when nothing is near or two tie", () => {
    expect(errorOf(() => resolve({ checkpointIntervalMS: 1 })).message).toContain(
      'did you mean "checkpointIntervalMs"',
    );
    expect(errorOf(() => resolve({ lg: 1 })).message).toContain('did you mean "log"');
    expect(errorOf(() => resolve({ maxOpenFilesss: 1 })).message).toContain('did you mean "maxOpenFiles"');
    expect(errorOf(() => resolve({ maxOpenFilessss: 1 })).message).not.toContain("did you mean");
    expect(errorOf(() => resolve({ somethingElse: 1 })).message).not.toContain("did you mean");
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- `as object` skips tsc's excess-key check
    const tied = errorOf(() => resolveOptions({ ab: 1 } as object, "t options", { aa: () => 1, bb: () => 2 }));
    expect(tied.message).not.toContain("did you mean");
  });

  it("a non-object is a TypeError saying what it is the options of and what it got", () => {
    for (const [bad, got] of [
      [null, "null"],
      [[1], "an array"],
      ["x", '"x"'],
      [5, "5"],
      [() => 1, "a function"],
    ] as const) {
      expect(errorOf(() => resolve(bad)).message).toBe(`Sample.open options must be an object, got ${got}`);
    }
  });

  it("a resolver's own TypeError goes through unchanged", () => {
    expect(errorOf(() => resolve({ checkpointIntervalMs: "5" })).message).toBe("option checkpointIntervalMs: a number");
  });

  it("checkKnownKeys: the same checks for code that reads its fields in place", () => {
    expect(() => checkKnownKeys({ a: 1, b: undefined }, "x options", ["a", "b"])).not.toThrow();
    expect(errorOf(() => checkKnownKeys({ c: 1 }, "x options", ["a", "b"])).message).toBe(
      'x options: unknown option "c"; known: a, b',
    );
    expect(errorOf(() => checkKnownKeys(null, "x options", ["a"])).message).toBe(
      "x options must be an object, got null",
    );
  });
});
