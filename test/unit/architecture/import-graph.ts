/**
 * The import graph of the source tree, read with the TypeScript compiler (not a regex), and the
 * rules the layer test holds it to. A function of an in-memory tree (path → text), so the test can
 * plant a violation in a small tree and see the checker catch it without touching src/ or web/.
 */
import { builtinModules } from "node:module";
import { posix } from "node:path";
import ts from "typescript";

/** One module reference found in a file. */
export interface ImportRef {
  /** The specifier as written; `undefined` for a computed `import(x)` / `require(x)`. */
  spec: string | undefined;
  /** `import type`, `export type`, `import("x").T`: erased from the JavaScript. */
  typeOnly: boolean;
  /** Which syntax it was, for messages. */
  form: string;
  line: number;
}

/** Every module a file refers to, in every syntax TypeScript accepts. */
export function importsOf(path: string, text: string): ImportRef[] {
  const kind = /\.[cm]?js$/.test(path) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const found: ImportRef[] = [];
  const add = (node: ts.Node, spec: ts.Node | undefined, typeOnly: boolean, form: string) => {
    const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
    // A template literal without `${}` is as static as a string; anything else is computed.
    found.push({ spec: spec && ts.isStringLiteralLike(spec) ? spec.text : undefined, typeOnly, form, line });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      // Under verbatimModuleSyntax only `import type` is erased; `import { type A }` still loads the module.
      const form = node.importClause ? "import" : "side-effect import";
      add(node, node.moduleSpecifier, node.importClause?.isTypeOnly ?? false, form);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      add(node, node.moduleSpecifier, node.isTypeOnly, "export from");
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node, node.moduleReference.expression, node.isTypeOnly, "import = require");
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      add(node, ts.isLiteralTypeNode(arg) ? arg.literal : undefined, true, "import type expression");
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const isImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(callee) && callee.text === "require";
      if (isImport || isRequire) add(node, node.arguments[0], false, isImport ? "import()" : "require()");
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** One resolved edge between two files of the tree (or out of it, `target` undefined). */
export interface ImportEdge extends ImportRef {
  from: string;
  /** The tree path it resolves to, for a relative specifier. */
  target: string | undefined;
}

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
/** `node:anything` or a bare built-in name (`fs`, `fs/promises`). */
export const isBuiltin = (spec: string) => spec.startsWith("node:") || BUILTINS.has(spec);

/** The tree path a relative specifier names: `./x.js` is `x.ts` on disk, as the bundler resolves it. */
export function resolveIn(files: ReadonlyMap<string, string>, from: string, spec: string): string | undefined {
  const base = posix.join(posix.dirname(from), spec);
  const swapped = base
    .replace(/\.js$/, ".ts")
    .replace(/\.mjs$/, ".mts")
    .replace(/\.cjs$/, ".cts");
  return [swapped, base, `${base}.ts`, `${base}/index.ts`].find((candidate) => files.has(candidate));
}

export function edgesOf(files: ReadonlyMap<string, string>): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const [from, text] of files) {
    for (const ref of importsOf(from, text)) {
      const relativeSpec = ref.spec !== undefined && ref.spec.startsWith(".");
      edges.push({ ...ref, from, target: relativeSpec ? resolveIn(files, from, ref.spec!) : undefined });
    }
  }
  return edges;
}

/** Files that import each other round a circle: one strongly connected component of the graph. */
export interface Cycle {
  /** Every file of the component, sorted. */
  files: string[];
  /** One shortest way round it from its first file, closed (`a → b → a`), for the message. */
  path: string[];
  /** Whether the files import each other round a circle at run time, or only through types. */
  kind: "runtime" | "type-only";
}

/**
 * Every import cycle between files, one per strongly connected component. Type-only edges count:
 * a type-only circle still means no file of it can be read, moved or tested without the others,
 * and one `import { type X }` (which loads the module under verbatimModuleSyntax) makes it a
 * runtime one.
 */
export function cyclesOf(edges: readonly ImportEdge[]): Cycle[] {
  const all = graphOf(edges);
  // A circle is a runtime one when it closes without its type-only edges too.
  const runtime = componentsOf(graphOf(edges.filter((e) => !e.typeOnly)));
  return componentsOf(all).map((component) => {
    const atRunTime = runtime.some((inner) => component.includes(inner[0]!));
    return {
      files: [...component].sort(),
      path: closedPath(component, all),
      kind: atRunTime ? "runtime" : "type-only",
    };
  });
}

function graphOf(edges: readonly ImportEdge[]): Map<string, Set<string>> {
  const next = new Map<string, Set<string>>();
  for (const e of edges)
    if (e.target !== undefined) (next.get(e.from) ?? next.set(e.from, new Set()).get(e.from)!).add(e.target);
  return next;
}

/** The strongly connected components with a cycle in them (two files or more, or a self-import). */
function componentsOf(next: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  // Tarjan's algorithm, iterative so a deep chain cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  for (const root of [...next.keys()].sort()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; children: string[] }> = [];
    const open = (node: string) => {
      index.set(node, index.size);
      low.set(node, index.get(node)!);
      stack.push(node);
      onStack.add(node);
      work.push({ node, children: [...(next.get(node) ?? [])].sort() });
    };
    open(root);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const child = top.children.shift();
      if (child !== undefined) {
        if (!index.has(child)) open(child);
        else if (onStack.has(child)) low.set(top.node, Math.min(low.get(top.node)!, index.get(child)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) !== index.get(top.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== top.node);
      if (component.length > 1 || next.get(top.node)?.has(top.node)) components.push(component);
    }
  }
  return components;
}

/** A shortest way round a component, from its first file back to it, for a readable message. */
function closedPath(component: string[], next: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const inside = new Set(component);
  const start = [...component].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const child of [...(next.get(node) ?? [])].sort()) {
      if (!inside.has(child)) continue;
      if (child === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        return [...path, start];
      }
      if (!cameFrom.has(child)) {
        cameFrom.set(child, node);
        queue.push(child);
      }
    }
  }
  return [start, start];
}

/** The rules the tree is held to. */
export interface LayerRules {
  /** What each layer under src/ may import, besides itself and `shared` (errors.ts, options.ts). */
  mayImport: Readonly<Record<string, readonly string[]>>;
  /** Files under src/ that may import `node:` built-ins. */
  mayUseNode: (srcPath: string) => boolean;
  /**
   * The rooms of a layer (see `roomOf`) and which rooms each may import, for the layers that
   * have them: an import between two rooms of one layer must be listed here, and a room the
   * table does not name (a new folder, a new top file) is a finding too, so that it gets a row.
   */
  rooms?: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
}

/** The modules every layer may import, themselves importing only each other. */
const SHARED = new Set(["errors.ts", "options.ts"]);

/** The layer of a file under src/: its top folder, `entry` for the package entries, `shared` for SHARED. */
export function layerOf(srcPath: string): string {
  if (SHARED.has(srcPath)) return "shared";
  return srcPath.includes("/") ? srcPath.slice(0, srcPath.indexOf("/")) : "entry";
}

/**
 * The room of a file inside its layer: the folder below the layer's (`log/state/log-state.ts` is
 * in `state`), or, for a file directly in the layer's folder, the file itself (`log.ts`).
 */
export function roomOf(srcPath: string): string {
  const inLayer = srcPath.slice(srcPath.indexOf("/") + 1);
  return inLayer.includes("/") ? inLayer.slice(0, inLayer.indexOf("/")) : inLayer;
}

/**
 * May the browser page contain this src/ file? Not the CLI nor the benchmark harness (where
 * `node:` is allowed), not the fs storage. Every other layer is browser-clean.
 */
export const browserClean = (srcPath: string) =>
  !srcPath.startsWith("cli/") && !srcPath.startsWith("bench/") && !/^storage\/fs[^/]*$/.test(srcPath);

export interface Report {
  edges: ImportEdge[];
  /** A src/ file importing a layer above its own. */
  upward: string[];
  /** An import between two rooms of a layer that its room table does not allow, or a room missing from it. */
  rooms: string[];
  /** A `node:` built-in where it may not be. */
  node: string[];
  /** A computed import() / require() outside the places that load user files: the checker cannot see it. */
  computed: string[];
  /** A relative import that names no file of the tree. */
  unresolved: string[];
  /** A web/src file reaching, directly or through src/, a file the browser may not have. */
  web: string[];
  cycles: Cycle[];
}

const inSrc = (path: string) => path.startsWith("src/");
const inWeb = (path: string) => path.startsWith("web/src/");
const srcPath = (path: string) => path.slice("src/".length);

/** Hold a tree of `src/**` and `web/src/**` files (repository-relative, `/`-separated) to the rules. */
export function checkTree(files: ReadonlyMap<string, string>, rules: LayerRules): Report {
  const edges = edgesOf(files);
  const report: Report = {
    edges,
    upward: [],
    rooms: [],
    node: [],
    computed: [],
    unresolved: [],
    web: [],
    cycles: [],
  };
  const mayUseNode = (path: string) => inSrc(path) && rules.mayUseNode(srcPath(path));
  for (const e of edges) {
    if (e.spec === undefined) {
      if (!mayUseNode(e.from)) report.computed.push(where(e));
      continue;
    }
    if (isBuiltin(e.spec) && !mayUseNode(e.from)) report.node.push(where(e));
    if (e.spec.startsWith(".") && e.target === undefined) report.unresolved.push(where(e));
    if (!inSrc(e.from) || e.target === undefined) continue;
    if (!inSrc(e.target)) {
      report.upward.push(`${where(e)} leaves src/ for ${e.target}`);
      continue;
    }
    const from = layerOf(srcPath(e.from));
    const to = layerOf(srcPath(e.target));
    if (to !== from && to !== "shared" && !(rules.mayImport[from] ?? []).includes(to))
      report.upward.push(`${where(e)}: ${from} may not import ${to} (${e.target})`);
    if (to === from) checkRooms(e, rules.rooms?.[from], report);
  }
  checkWeb(edges, report);
  report.cycles = cyclesOf(edges);
  return report;
}

/** An edge inside one layer, held to the layer's room table when it has one. */
function checkRooms(
  e: ImportEdge,
  table: Readonly<Record<string, readonly string[]>> | undefined,
  report: Report,
): void {
  if (table === undefined) return;
  const from = roomOf(srcPath(e.from));
  const to = roomOf(srcPath(e.target!));
  const fromRow = table[from];
  if (fromRow === undefined) report.rooms.push(`${where(e)}: room ${from} is not in the room table`);
  else if (table[to] === undefined) report.rooms.push(`${where(e)}: room ${to} is not in the room table`);
  else if (to !== from && !fromRow.includes(to))
    report.rooms.push(`${where(e)}: room ${from} may not import room ${to} (${e.target})`);
}

/**
 * The page bundles everything web/src reaches, type imports included (they name the layer too), so
 * the walk follows every edge from web/src into src/ and on, and stops the first time at each file.
 */
function checkWeb(edges: readonly ImportEdge[], report: Report): void {
  const out = new Map<string, ImportEdge[]>();
  for (const e of edges) (out.get(e.from) ?? out.set(e.from, []).get(e.from)!).push(e);
  const via = new Map<string, string>();
  const queue: string[] = [];
  for (const from of out.keys()) {
    if (!inWeb(from)) continue;
    via.set(from, from);
    queue.push(from);
  }
  while (queue.length > 0) {
    const file = queue.shift()!;
    const chain = via.get(file)!;
    for (const e of out.get(file) ?? []) {
      if (e.spec !== undefined && isBuiltin(e.spec)) {
        // web/src files were already reported by the node: rule; here: a src/ file the page pulls in.
        if (inSrc(file)) report.web.push(`${chain} reaches ${where(e)}`);
        continue;
      }
      if (e.target === undefined || via.has(e.target)) continue;
      if (!inWeb(e.target) && !inSrc(e.target)) {
        report.web.push(`${chain} → ${e.target}: the page may import only web/src and src/`);
        continue;
      }
      via.set(e.target, `${chain} → ${e.target}`);
      queue.push(e.target);
      if (!inSrc(e.target) || browserClean(srcPath(e.target))) continue;
      report.web.push(
        `${chain} → ${e.target}: not browser-clean (src/cli, src/bench and src/storage/fs* are Node-only)`,
      );
    }
  }
}

/** `file:line (form "spec")`: where an edge is written. */
function where(e: ImportEdge): string {
  return `${e.from}:${e.line} (${e.form} ${e.spec === undefined ? "<computed>" : `"${e.spec}"`})`;
}
