/**
 * The published .d.ts files, as an editor shows them: every declaration an entry point exports,
 * and every public member of one (a class's methods, an options interface's fields), has one
 * TSDoc comment of its own with a summary. Two comments on one declaration mean a file header
 * attached itself to the first declaration (hovering it showed the header too); a comment of tags
 * only (`@defaultValue -1`) says nothing of what the option is.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { repo } from "../support/packed-project.js";

const ENTRIES = ["index", "node", "format", "fs", "testing", "course", "kafka"];

/** The JSDoc comments attached to `node` (TypeScript keeps them on the node as `jsDoc`). */
function docsOf(node: ts.Node): ts.JSDoc[] {
  return ((node as { jsDoc?: ts.JSDoc[] }).jsDoc ?? []).filter(ts.isJSDoc);
}

function summaryOf(doc: ts.JSDoc): string {
  const comment = doc.comment;
  return (typeof comment === "string" ? comment : (comment ?? []).map((part) => part.text).join("")).trim();
}

function isPublicMember(member: ts.Node): boolean {
  if (ts.isIndexSignatureDeclaration(member) || ts.isClassStaticBlockDeclaration(member)) return false;
  const name = (member as { name?: ts.Node }).name;
  if (name !== undefined && ts.isPrivateIdentifier(name)) return false;
  const flags = ts.getCombinedModifierFlags(member as ts.Declaration);
  return (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) === 0;
}

/** A declaration's name for a message: `LogOptions.segmentBytes`, `Log.constructor`. */
function nameOf(node: ts.Node, owner?: string): string {
  const name = (node as { name?: ts.Node }).name;
  const own = name !== undefined ? name.getText() : ts.isConstructorDeclaration(node) ? "constructor" : "(anonymous)";
  return owner === undefined ? own : `${owner}.${own}`;
}

/** One program over `files`: each program reads TypeScript's default lib anew, about 1 CPU-s. */
function programOf(files: string[]): ts.Program {
  return ts.createProgram(files, { noEmit: true, skipLibCheck: true, types: [] });
}

/**
 * What is wrong with the docs of `file`'s exports (and their members), one line each; `program`
 * (programOf) holds `file`, and may hold others.
 */
export function undocumented(file: string, program = programOf([file])): string[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  const moduleSymbol = checker.getSymbolAtLocation(source)!;
  const problems: string[] = [];
  const seen = new Set<ts.Node>();
  const check = (node: ts.Node, what: string): void => {
    if (seen.has(node)) return;
    seen.add(node);
    const docs = docsOf(node);
    if (docs.length === 0) problems.push(`${what}: no doc comment`);
    else if (docs.length > 1) problems.push(`${what}: ${docs.length} doc comments (a file header attached to it?)`);
    else if (summaryOf(docs[0]!) === "") problems.push(`${what}: a doc comment with tags only, no summary`);
  };
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    for (const declaration of symbol.declarations ?? []) {
      // A `const` is documented on its statement, as `export declare const x` is written.
      const node = ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration;
      check(node, exported.name);
      let members: ts.NodeArray<ts.Node> | undefined;
      if (ts.isClassDeclaration(declaration) || ts.isInterfaceDeclaration(declaration)) members = declaration.members;
      else if (ts.isTypeAliasDeclaration(declaration) && ts.isTypeLiteralNode(declaration.type))
        members = declaration.type.members;
      for (const member of members ?? []) if (isPublicMember(member)) check(member, nameOf(member, exported.name));
    }
  }
  return problems;
}

describe("the published .d.ts files", () => {
  const files = ENTRIES.map((entry) => join(repo, `dist/${entry}.d.ts`));
  // All seven entries in one program: one parse of the lib, not seven.
  let program: ts.Program;
  beforeAll(() => {
    execFileSync(process.execPath, [join(repo, "scripts/ensure-built.mjs")], { cwd: repo, stdio: "pipe" });
    program = programOf(files);
  }, 600_000);

  for (const [i, entry] of ENTRIES.entries()) {
    it(`dist/${entry}.d.ts: every export and every public member of one has a doc comment of its own`, () => {
      expect(undocumented(files[i]!, program)).toEqual([]);
    });
  }

  it("the check finds an undocumented export, an undocumented option, a tags-only doc and a stacked file header", () => {
    const dir = mkdtempSync(join(tmpdir(), "pagelog-docs-"));
    try {
      const file = join(dir, "planted.d.ts");
      writeFileSync(
        file,
        [
          "/** The file's header. */",
          "/** Documented. */",
          "export declare type Status = 'open' | 'closed';",
          "export declare function bare(): void;",
          "/** Options. */",
          "export interface Options {",
          "  /** @defaultValue 1 */",
          "  count?: number;",
          "  size?: number;",
          "  /** Documented. */",
          "  name?: string;",
          "}",
          "/** A class. */",
          "export declare class Thing {",
          "  #private;",
          "  private hidden;",
          "  open(): void;",
          "}",
          "",
        ].join("\n"),
      );
      expect(undocumented(file).sort()).toEqual(
        [
          "Status: 2 doc comments (a file header attached to it?)",
          "bare: no doc comment",
          "Options.count: a doc comment with tags only, no summary",
          "Options.size: no doc comment",
          "Thing.open: no doc comment",
        ].sort(),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
