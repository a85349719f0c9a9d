/**
 * The layer checker on small planted trees: each rule must fail on the violation it exists for,
 * in every import syntax, and stay quiet on a clean tree. In memory, so nothing is left in src/.
 */
import { describe, expect, it } from "vitest";
import { checkTree, importsOf, type LayerRules } from "./import-graph.js";

const RULES: LayerRules = {
  mayImport: { storage: [], log: ["storage"], demo: ["storage", "log"], cli: ["storage", "log", "demo"] },
  mayUseNode: (file) => file.startsWith("cli/") || file.startsWith("bench/") || /^storage\/fs-[^/]+\.ts$/.test(file),
};

/** A clean little tree: web → demo → log → storage, the CLI on top, the fs storage using node:. */
const CLEAN: Record<string, string> = {
  "src/errors.ts": "export class E extends Error {}",
  "src/storage/storage.ts": 'import { E } from "../errors.js";\nexport interface S { e: E }',
  "src/storage/fs-storage.ts": 'import { open } from "node:fs/promises";\nexport const o = open;',
  "src/log/log.ts": 'import type { S } from "../storage/storage.js";\nexport const log = (s: S) => s;',
  "src/cli/main.ts":
    'import { log } from "../log/log.js";\nimport { o } from "../storage/fs-storage.js";\nimport "node:process";\nexport { log, o };',
  "src/demo/session.ts": 'import { log } from "../log/log.js";\nexport const demo = log;',
  "web/src/page.ts":
    'import { log } from "../../src/log/log.js";\nimport { demo } from "../../src/demo/session.js";\nexport { log, demo };',
};

function check(planted: Record<string, string>) {
  return checkTree(new Map(Object.entries({ ...CLEAN, ...planted })), RULES);
}

/** Every finding of a report, for "exactly this one" assertions. */
function findings(planted: Record<string, string>) {
  const { edges: _edges, ...rest } = check(planted);
  return rest;
}

const NONE = { upward: [], rooms: [], node: [], computed: [], unresolved: [], web: [], cycles: [] };

describe("the layer checker", () => {
  it("finds nothing in a clean tree", () => {
    expect(findings({})).toEqual(NONE);
  });

  it("reads every import form, with the type-only ones marked", () => {
    const text = [
      'import a from "./a.js";',
      'import "./side.js";',
      'import type { T } from "./t.js";',
      'import { type U } from "./u.js";',
      'export * from "./star.js";',
      'export type { V } from "./v.js";',
      'const d = import("./dyn.js");',
      "const t = import(`./tmpl.js`);",
      "const x = import(`./${name}.js`);",
      'const r = require("./req.js");',
      'import q = require("./eq.js");',
      'let s: import("./typed.js").S;',
    ].join("\n");
    expect(importsOf("src/x.ts", text).map((r) => [r.spec, r.typeOnly, r.form, r.line])).toEqual([
      ["./a.js", false, "import", 1],
      ["./side.js", false, "side-effect import", 2],
      ["./t.js", true, "import", 3],
      // Under verbatimModuleSyntax `import { type U }` still loads the module.
      ["./u.js", false, "import", 4],
      ["./star.js", false, "export from", 5],
      ["./v.js", true, "export from", 6],
      ["./dyn.js", false, "import()", 7],
      ["./tmpl.js", false, "import()", 8],
      [undefined, false, "import()", 9],
      ["./req.js", false, "require()", 10],
      ["./eq.js", false, "import = require", 11],
      ["./typed.js", true, "import type expression", 12],
    ]);
  });

  it("does not take an import in a string or a comment for one", () => {
    const text = '// import "./no.js";\nconst s = "import x from \'./no2.js\'";\n/* require("./no3.js") */';
    expect(importsOf("src/x.ts", text)).toEqual([]);
  });

  describe("fails on a planted upward import", () => {
    const forms = {
      "a side-effect import": 'import "../log/log.js";',
      "an export from": 'export { log } from "../log/log.js";',
      "a type-only import": 'import type { log } from "../log/log.js";',
      "a template-literal import()": "export const m = () => import(`../log/log.js`);",
      "a require()": 'export const m = require("../log/log.js");',
      "an import = require": 'import m = require("../log/log.js");\nexport { m };',
    };
    for (const [name, text] of Object.entries(forms)) {
      it(name, () => {
        const found = findings({ "src/storage/up.ts": text });
        expect(found.upward).toHaveLength(1);
        expect(found.upward[0]).toMatch(/^src\/storage\/up\.ts:\d+ .*storage may not import log/);
        expect({ ...found, upward: [] }).toEqual(NONE);
      });
    }

    it("an import that leaves src/", () => {
      const found = findings({ "src/log/out.ts": 'import "../../web/src/page.js";' });
      expect(found.upward).toEqual([expect.stringContaining("leaves src/ for web/src/page.ts")]);
    });
  });

  describe("fails on a planted cycle", () => {
    it("two files importing each other at run time", () => {
      const found = findings({
        "src/log/a.ts": 'import { b } from "./b.js";\nexport const a = () => b();',
        "src/log/b.ts": 'import { a } from "./a.js";\nexport const b = () => a();',
      });
      expect(found.cycles).toEqual([
        {
          files: ["src/log/a.ts", "src/log/b.ts"],
          path: ["src/log/a.ts", "src/log/b.ts", "src/log/a.ts"],
          kind: "runtime",
        },
      ]);
    });

    it("a type-only circle of three", () => {
      const found = findings({
        "src/log/p.ts": 'import type { Q } from "./q.js";\nexport type P = Q;',
        "src/log/q.ts": 'import type { R } from "./r.js";\nexport type Q = R;',
        "src/log/r.ts": 'export type R = import("./p.js").P;',
      });
      expect(found.cycles).toEqual([
        {
          files: ["src/log/p.ts", "src/log/q.ts", "src/log/r.ts"],
          path: ["src/log/p.ts", "src/log/q.ts", "src/log/r.ts", "src/log/p.ts"],
          kind: "type-only",
        },
      ]);
    });

    it("a component bigger than its shortest circle lists every file", () => {
      // loader → plan → loader (types) and loader → apply → loader (types): one component of three.
      const found = findings({
        "src/log/loader.ts":
          'import { plan } from "./plan.js";\nimport { apply } from "./apply.js";\nexport type In = 1;',
        "src/log/plan.ts": 'import type { In } from "./loader.js";\nexport const plan = (i: In) => i;',
        "src/log/apply.ts": 'import type { In } from "./loader.js";\nexport const apply = (i: In) => i;',
      });
      expect(found.cycles).toEqual([
        {
          files: ["src/log/apply.ts", "src/log/loader.ts", "src/log/plan.ts"],
          path: ["src/log/apply.ts", "src/log/loader.ts", "src/log/apply.ts"],
          kind: "type-only",
        },
      ]);
    });

    it("a runtime circle inside a bigger type-only component is a runtime one", () => {
      const found = findings({
        "src/log/a.ts": 'import "./b.js";',
        "src/log/b.ts": 'import "./a.js";\nimport type { C } from "./c.js";',
        "src/log/c.ts": 'import type { A } from "./a.js";',
      });
      expect(found.cycles.map((c) => [c.files.length, c.kind])).toEqual([[3, "runtime"]]);
    });

    it("a file importing itself, and two separate circles reported apart", () => {
      const found = findings({
        "src/log/self.ts": 'export * from "./self.js";',
        "src/log/a.ts": 'import "./b.js";',
        "src/log/b.ts": 'import "./a.js";',
      });
      expect(found.cycles).toHaveLength(2);
      expect(found.cycles).toContainEqual({
        files: ["src/log/self.ts"],
        path: ["src/log/self.ts", "src/log/self.ts"],
        kind: "runtime",
      });
    });

    it("a cycle between web/src files", () => {
      const found = findings({ "web/src/x.ts": 'import "./y.js";', "web/src/y.ts": 'import "./x.js";' });
      expect(found.cycles.map((c) => c.path)).toEqual([["web/src/x.ts", "web/src/y.ts", "web/src/x.ts"]]);
    });
  });

  describe("fails on a planted node: import in web/", () => {
    it('a side-effect import "node:fs"', () => {
      const found = findings({ "web/src/bad.ts": 'import "node:fs";' });
      expect(found.node).toEqual([expect.stringContaining('web/src/bad.ts:1 (side-effect import "node:fs")')]);
    });

    it("a bare built-in name, a dynamic import and a type import", () => {
      const found = findings({
        "web/src/bad.ts":
          'import { join } from "path";\nexport const f = () => import(`node:os`);\nlet s: import("fs").Stats;',
      });
      expect(found.node).toHaveLength(3);
    });

    it("a src/ file the page pulls in that imports node:", () => {
      const found = findings({
        "src/log/clock.ts": 'import { hrtime } from "node:process";\nexport const t = hrtime;',
        "web/src/page.ts": 'import { t } from "../../src/log/clock.js";\nexport { t };',
      });
      expect(found.web).toEqual([
        expect.stringMatching(/^web\/src\/page\.ts → src\/log\/clock\.ts reaches .*"node:process"/),
      ]);
      expect(found.node).toHaveLength(1); // the src/ rule sees it too
    });

    it("a src/cli file, even one free of node: (no allow-list)", () => {
      const found = findings({
        "web/src/more.ts": 'import type { X } from "../../src/cli/new.js";',
        "src/cli/new.ts": "export type X = 1;",
      });
      expect(found.web).toEqual([expect.stringContaining("web/src/more.ts → src/cli/new.ts: not browser-clean")]);
      expect({ ...found, web: [] }).toEqual(NONE);
    });

    it("a src/bench file, directly", () => {
      const found = findings({
        "web/src/more.ts": 'import { b } from "../../src/bench/rows.js";\nexport { b };',
        "src/bench/rows.ts": "export const b = 1;",
      });
      expect(found.web).toEqual([expect.stringContaining("web/src/more.ts → src/bench/rows.ts: not browser-clean")]);
    });

    it("the fs storage through a browser-clean layer", () => {
      const through = findings({
        "src/demo/session.ts": 'export { o } from "../storage/fs-storage.js";',
      });
      // Both: a file the page may not have, and the node: import it brings.
      expect(through.web).toEqual([
        expect.stringContaining("web/src/page.ts → src/demo/session.ts → src/storage/fs-storage.ts: not browser-clean"),
        expect.stringMatching(/→ src\/storage\/fs-storage\.ts reaches .*"node:fs\/promises"/),
      ]);
    });

    it("a page file outside web/src and src/", () => {
      const found = findings({ "web/src/t.ts": 'import "../../test/helper.js";', "test/helper.ts": "" });
      expect(found.web).toEqual([expect.stringContaining("the page may import only web/src and src/")]);
    });
  });

  describe("holds the rooms of a layer to its room table", () => {
    /** A layer `log` in rooms: `state` at the bottom, `write` above it, the façade `log.ts` on top. */
    const ROOMS: LayerRules = {
      ...RULES,
      rooms: { log: { state: [], write: ["state"], "log.ts": ["state", "write"] } },
    };
    const tree = (planted: Record<string, string>) =>
      new Map(
        Object.entries({
          ...CLEAN,
          "src/log/state/s.ts": "export const s = 1;",
          "src/log/write/w.ts": 'import { s } from "../state/s.js";\nexport const w = s;',
          "src/log/log.ts": 'import { w } from "./write/w.js";\nexport const log = w;',
          ...planted,
        }),
      );
    const rooms = (planted: Record<string, string>) => checkTree(tree(planted), ROOMS).rooms;

    it("finds nothing when every import follows the table", () => {
      expect(rooms({})).toEqual([]);
    });

    it("refuses a room importing one its row does not name, in a type-only import too", () => {
      expect(rooms({ "src/log/state/s.ts": 'import type { W } from "../write/w.js";\nexport const s = 1;' })).toEqual([
        expect.stringMatching(/^src\/log\/state\/s\.ts:1 .*room state may not import room write/),
      ]);
    });

    it("refuses a room reaching up into the façade", () => {
      expect(rooms({ "src/log/write/w.ts": 'import { log } from "../log.js";\nexport const w = log;' })).toEqual([
        expect.stringContaining("room write may not import room log.ts"),
      ]);
    });

    it("refuses a room the table has no row for, importing or imported", () => {
      const found = rooms({
        "src/log/read/r.ts": 'import { s } from "../state/s.js";\nexport const r = s;',
        "src/log/write/w.ts": 'import { s } from "../state/s.js";\nimport "../extra.js";\nexport const w = s;',
        "src/log/extra.ts": "export {};",
      });
      expect(found).toEqual([
        expect.stringContaining("room extra.ts is not in the room table"),
        expect.stringContaining("room read is not in the room table"),
      ]);
    });

    it("leaves a layer without a table alone", () => {
      expect(checkTree(tree({ "src/log/state/s.ts": 'import "../write/w.js";' }), RULES).rooms).toEqual([]);
    });
  });

  it("reports a relative import that names no file, and a computed one outside the CLI", () => {
    const found = findings({ "src/log/typo.ts": 'import "./nope.js";\nexport const f = (n: string) => import(n);' });
    expect(found.unresolved).toEqual([expect.stringContaining('src/log/typo.ts:1 (side-effect import "./nope.js")')]);
    expect(found.computed).toEqual([expect.stringContaining("src/log/typo.ts:2 (import() <computed>)")]);
    expect(findings({ "src/cli/load.ts": "export const f = (n: string) => import(n);" }).computed).toEqual([]);
  });
});
