/**
 * The native CRC-32C (issue 36): pagelog takes `@node-rs/crc32` (its optional dependency) as
 * `crc32c`'s fast path only after a self-test, from NATIVE_CRC32C_FROM_BYTES up; stand-in
 * modules that lie (plain CRC-32, wrong only on long inputs, blind to a view's offset), throw,
 * return no number or are missing leave the pure-JS table in use and are reported once, as a
 * process warning with a stable code. The unit project shares modules between files, so every
 * test here puts pagelog's own choice back afterwards.
 */
import { createRequire } from "node:module";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  installNativeCrc32c,
  NATIVE_CRC32C_FROM_BYTES,
  selfTestCrc32c,
} from "../../../src/format/crc32c-accelerator.js";
import { crc32c, crc32cInUse, tableCrc32c, type Crc32c } from "../../../src/format/crc32c.js";
import {
  CRC32C_FALLBACK_WARNING,
  loadNativeCrc32c,
  NATIVE_CRC32C_PACKAGE,
  warnCrc32cFallback,
} from "../../../src/storage/fs-native-crc32c.js";
import { fastCheckParams } from "../../support/seed.js";
import { bitwiseCrc32c, utf8 } from "./helpers.js";

const realRequire = createRequire(import.meta.url);
const native = (realRequire(NATIVE_CRC32C_PACKAGE) as { crc32c: (b: Uint8Array) => number }).crc32c;
const nativeCrc: Crc32c = (bytes) => native(bytes) >>> 0;

/** pagelog's own choice, as the Node entry makes it. */
const reinstall = () =>
  installNativeCrc32c(
    () => loadNativeCrc32c(),
    () => {},
  );
afterEach(() => {
  vi.unstubAllEnvs();
  reinstall();
});

/** A `require` that serves `module` for the package (and its package.json), as a stand-in install would. */
function standIn(module: unknown): (id: string) => unknown {
  return (id) => {
    if (id === NATIVE_CRC32C_PACKAGE) return module;
    if (id === `${NATIVE_CRC32C_PACKAGE}/package.json`) return { version: "0.0.0-stand-in" };
    throw Object.assign(new Error(`Cannot find module '${id}'`), { code: "MODULE_NOT_FOUND" });
  };
}

/** Installs what `load` finds; returns the fallback reason and every warning given. */
function install(load: () => ReturnType<typeof loadNativeCrc32c>): { reason: string | undefined; warnings: string[] } {
  const warnings: string[] = [];
  const reason = installNativeCrc32c(load, (w) => warnings.push(w));
  return { reason, warnings };
}

describe("the installed native CRC-32C", () => {
  it("passes the self-test and is what pagelog uses, from its crossover length up", () => {
    const { reason, warnings } = install(() => loadNativeCrc32c());
    expect(reason).toBeUndefined();
    expect(warnings).toEqual([]);
    expect(crc32cInUse()).toEqual({
      kind: "native",
      label: expect.stringMatching(/^@node-rs\/crc32 \d+\.\d+\.\d+/),
      fromBytes: NATIVE_CRC32C_FROM_BYTES,
      fallback: undefined,
    });
    expect(crc32c(utf8("123456789"))).toBe(0xe3069283);
  });

  it("crc32c calls it from NATIVE_CRC32C_FROM_BYTES up, and the table below", () => {
    const calls: number[] = [];
    install(() => ({
      crc: (bytes) => (calls.push(bytes.length), nativeCrc(bytes)),
      label: "counting",
    }));
    calls.length = 0;
    crc32c(new Uint8Array(NATIVE_CRC32C_FROM_BYTES - 1));
    expect(calls).toEqual([]);
    crc32c(new Uint8Array(NATIVE_CRC32C_FROM_BYTES));
    expect(calls).toEqual([NATIVE_CRC32C_FROM_BYTES]);
  });

  it("agrees with the table and a bitwise CRC-32C on any bytes, any length, any view offset", () => {
    reinstall();
    expect(crc32cInUse().kind).toBe("native");
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 40_000, size: "max" }),
        fc.nat(15),
        fc.nat(15),
        (bytes, head, tail) => {
          const view = bytes.subarray(
            Math.min(head, bytes.length),
            Math.max(Math.min(head, bytes.length), bytes.length - tail),
          );
          const table = tableCrc32c(view);
          expect(nativeCrc(view)).toBe(table);
          expect(crc32c(view)).toBe(table);
          if (view.length <= 2048) expect(bitwiseCrc32c(view)).toBe(table);
        },
      ),
      { ...fastCheckParams(), numRuns: 100 },
    );
  });

  it("agrees on Buffers and on views of a larger Buffer (what FsStorage reads into)", () => {
    const pool = Buffer.alloc(3 * 65_536 + 7);
    for (let i = 0; i < pool.length; i++) pool[i] = (i * 131 + 7) & 0xff;
    for (const [at, length] of [
      [0, 65_536],
      [3, 100_000],
      [7, 1_025],
      [65_536 + 1, 2 * 65_536],
    ] as const) {
      const view = pool.subarray(at, at + length);
      expect(nativeCrc(view)).toBe(tableCrc32c(view));
      expect(nativeCrc(new Uint8Array(view.buffer, view.byteOffset, view.byteLength))).toBe(tableCrc32c(view));
    }
  });
});

describe("a native CRC-32C that is wrong falls back to the table, and says so", () => {
  const liars: Array<[string, unknown, RegExp]> = [
    [
      "plain CRC-32 (zlib's)",
      { crc32c: (realRequire(NATIVE_CRC32C_PACKAGE) as { crc32: Crc32c }).crc32 },
      /plain CRC-32/,
    ],
    [
      "right on short inputs, wrong from 8 KiB",
      { crc32c: (b: Uint8Array) => (b.length >= 8192 ? native(b) ^ 1 : native(b)) },
      /on 8192 bytes at offset \d it returned/,
    ],
    [
      "blind to a view's offset (reads from the start of the ArrayBuffer)",
      { crc32c: (b: Uint8Array) => native(new Uint8Array(b.buffer, 0, b.length)) },
      /on \d+ bytes at offset [1-7] it returned/,
    ],
    [
      "throws on some lengths",
      {
        crc32c: (b: Uint8Array) => {
          if (b.length === 4097) throw new Error("unaligned tail");
          return native(b);
        },
      },
      /threw on 4097 bytes at offset \d: unaligned tail/,
    ],
    // The loader reads the result as unsigned (`>>> 0`): what is not a number reads as 0.
    [
      "returns a promise",
      { crc32c: async (b: Uint8Array) => native(b) },
      /is not CRC-32C: for "123456789" it returned 0x0/,
    ],
    ["exports no crc32c", { crc32: native }, /exports no crc32c function/],
    ["an empty module", undefined, /exports no crc32c function/],
  ];

  it.each(liars)("%s", (_what, module, reason) => {
    const { reason: got, warnings } = install(() => loadNativeCrc32c(standIn(module)));
    expect(got).toMatch(reason);
    expect(warnings).toEqual([got]);
    expect(crc32cInUse()).toMatchObject({ kind: "js", fromBytes: undefined, fallback: got });
    // The table answers every length again.
    const long = new Uint8Array(70_000).map((_, i) => i * 7);
    expect(crc32c(long)).toBe(bitwiseCrc32c(long));
  });

  it("a missing package: named, with why it may be missing", () => {
    const missing = (id: string): never => {
      throw Object.assign(new Error(`Cannot find module '${id}'`), { code: "MODULE_NOT_FOUND" });
    };
    const { reason, warnings } = install(() => loadNativeCrc32c(missing));
    expect(reason).toMatch(
      /^@node-rs\/crc32 is not installed \(an optional dependency of pagelog; no prebuilt binary for/,
    );
    expect(warnings).toEqual([reason]);
    expect(crc32cInUse().kind).toBe("js");
  });

  it("a package that throws while loading (a broken binary): its error, not 'not installed'", () => {
    const { reason } = install(() =>
      loadNativeCrc32c(() => {
        throw new Error("invalid ELF header");
      }),
    );
    expect(reason).toBe("@node-rs/crc32 failed to load: invalid ELF header");
    expect(crc32cInUse().kind).toBe("js");
  });

  it("a loader that throws is a fallback too, never an import that fails", () => {
    const { reason } = install(() => {
      throw new Error("boom");
    });
    expect(reason).toBe("loading it threw: boom");
    expect(crc32cInUse().kind).toBe("js");
  });

  it("PAGELOG_CRC32C=js: the table, with no warning", () => {
    vi.stubEnv("PAGELOG_CRC32C", "js");
    const { reason, warnings } = install(() => loadNativeCrc32c());
    expect(reason).toBe("PAGELOG_CRC32C=js");
    expect(warnings).toEqual([]);
    expect(crc32cInUse()).toMatchObject({ kind: "js", fallback: "PAGELOG_CRC32C=js" });
  });

  it("selfTestCrc32c passes the table itself and the installed native one", () => {
    expect(selfTestCrc32c(tableCrc32c)).toBeUndefined();
    expect(selfTestCrc32c(nativeCrc)).toBeUndefined();
  });
});

describe("the fallback warning", () => {
  const WARNED = Symbol.for("pagelog.crc32cFallbackWarned");
  let warnings: Error[];
  const listener = (w: Error) => warnings.push(w);
  beforeEach(() => {
    warnings = [];
    delete (globalThis as { [WARNED]?: boolean })[WARNED];
    process.on("warning", listener);
  });
  afterEach(() => {
    process.off("warning", listener);
  });

  it("is one process warning with code PAGELOG_CRC32C_FALLBACK, however often a fallback happens", async () => {
    warnCrc32cFallback("first reason");
    warnCrc32cFallback("second reason");
    await new Promise((done) => setImmediate(done));
    expect(warnings).toHaveLength(1);
    expect((warnings[0] as Error & { code?: string }).code).toBe(CRC32C_FALLBACK_WARNING);
    expect(warnings[0]!.message).toMatch(/^pagelog uses its pure-JS CRC-32C .*: first reason\. PAGELOG_CRC32C=js/);
  });
});
