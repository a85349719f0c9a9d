/**
 * The exported names of src/, read with the TypeScript compiler: which file declares each one,
 * and which of them anything imports. Two rules come of it (export-names.test.ts): an exported
 * name is declared in one src/ file only (a reader grepping `Step` must land on one thing), and
 * an export of a src/ file that no file imports is dead, unless a public entry (src/*.ts) exports
 * it. A function of an in-memory tree (path → text), so a planted violation can be checked.
 */
import ts from "typescript";
import { resolveIn } from "./import-graph.js";

/** What the two rules find. */
export interface ExportFindings {
  /** `Name: a.ts, b.ts`: one exported name declared in more than one src/ file. */
  collisions: string[];
  /** `file.ts: Name`: exported by a src/ file that is not an entry, and imported by no file. */
  dead: string[];
}

const isEntry = (path: string) => /^src\/[^/]+\.ts$/.test(path);
const EXPORT = ts.SyntaxKind.ExportKeyword;
const hasExport = (node: ts.Node) =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === EXPORT);

/** The names a file declares with `export` (declarations and local `export { a as b }`). */
function declaredExports(file: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const node of file.statements) {
    if (
      ts.isExportDeclaration(node) &&
      !node.moduleSpecifier &&
      node.exportClause &&
      ts.isNamedExports(node.exportClause)
    ) {
      for (const e of node.exportClause.elements) names.add(e.name.text);
    } else if (ts.isExportAssignment(node)) {
      names.add("default");
    } else if (hasExport(node)) {
      if (ts.isVariableStatement(node)) {
        for (const d of node.declarationList.declarations) if (ts.isIdentifier(d.name)) names.add(d.name.text);
      } else {
        const name = (node as ts.DeclarationStatement).name;
        if (name && ts.isIdentifier(name)) names.add(name.text);
      }
    }
  }
  return names;
}

/** What one file takes from the others: `file → names`, `"*"` for the whole module. */
function importedNames(
  path: string,
  file: ts.SourceFile,
  files: ReadonlyMap<string, string>,
  used: Map<string, Set<string>>,
) {
  const use = (spec: ts.Node | undefined, name: string) => {
    if (!spec || !ts.isStringLiteralLike(spec) || !spec.text.startsWith(".")) return;
    const target = resolveIn(files, path, spec.text);
    if (target !== undefined) (used.get(target) ?? used.set(target, new Set()).get(target)!).add(name);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      if (clause?.name) use(node.moduleSpecifier, "default");
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) use(node.moduleSpecifier, "*");
      if (bindings && ts.isNamedImports(bindings))
        for (const e of bindings.elements) use(node.moduleSpecifier, (e.propertyName ?? e.name).text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const clause = node.exportClause;
      if (clause && ts.isNamedExports(clause))
        for (const e of clause.elements) use(node.moduleSpecifier, (e.propertyName ?? e.name).text);
      else use(node.moduleSpecifier, "*");
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const q = node.qualifier;
      use(node.argument.literal, q === undefined ? "*" : ts.isIdentifier(q) ? q.text : q.left.getText(file));
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      use(node.arguments[0], "*");
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}

/** Hold a tree (src/ plus whatever imports it: test/, web/src/) to the two rules. */
export function checkExports(files: ReadonlyMap<string, string>): ExportFindings {
  const declared = new Map<string, Set<string>>();
  const used = new Map<string, Set<string>>();
  for (const [path, text] of files) {
    const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    if (path.startsWith("src/")) declared.set(path, declaredExports(file));
    importedNames(path, file, files, used);
  }
  const byName = new Map<string, string[]>();
  const dead: string[] = [];
  for (const [path, names] of declared) {
    if (isEntry(path)) continue;
    const taken = used.get(path) ?? new Set();
    for (const name of names) {
      if (name !== "default") (byName.get(name) ?? byName.set(name, []).get(name)!).push(path);
      if (!taken.has(name) && !taken.has("*")) dead.push(`${path}: ${name}`);
    }
  }
  const collisions = [...byName]
    .filter(([, paths]) => paths.length > 1)
    .map(([name, paths]) => `${name}: ${paths.sort().join(", ")}`);
  return { collisions: collisions.sort(), dead: dead.sort() };
}
