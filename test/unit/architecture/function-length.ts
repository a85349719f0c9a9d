/**
 * Function lengths, read with the TypeScript compiler, and the ratchet that holds them (as
 * TigerBeetle's tidy.zig holds its 70-line rule). Pure functions of in-memory text, so the test
 * can plant a long function and see the checker catch it without touching src/.
 */
import ts from "typescript";

/** One function-like node: a declaration, method, accessor, constructor, arrow or function expression. */
export interface FunctionLength {
  file: string;
  /** Its name as a reader finds it: `runCut`, `Log.append`, `RESOLVERS.seed`, `<anonymous>`. */
  name: string;
  line: number;
  /** Lines from its first token to its last, both included (nested functions count in it too). */
  lines: number;
}

/** A function allowed over the limit, and why. It may not grow, and a stale entry fails. */
export interface Allowed {
  file: string;
  name: string;
  /** Its length when allowed: longer fails. */
  maxLines: number;
  reason: string;
}

export interface LengthRules {
  /** The rule: no function longer than this... */
  limit: number;
  /** ...except these... */
  allowed: readonly Allowed[];
  /** ...and the ratchet: the longest function not allowed, as committed. Longer fails; shorter asks to lower it. */
  longest: number;
}

/** Every function-like node of one file, with its length in lines. */
export function functionLengths(file: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const line = lineOf(node.getStart(source));
      found.push({ file, name: nameOf(node), line, lines: lineOf(node.getEnd()) - line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The name a reader would search for: the declaration's, or the variable, property or method it is assigned to. */
function nameOf(node: ts.Node): string {
  const own = (node as { name?: ts.Node }).name;
  let name = own !== undefined && !ts.isComputedPropertyName(own) ? own.getText() : undefined;
  if (ts.isConstructorDeclaration(node)) name = "constructor";
  const parent = node.parent;
  if (name === undefined) {
    if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
      name = parent.name.getText();
    else if (ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken)
      name = parent.left.getText();
  }
  name ??= "<anonymous>";
  // A member is named with its class or object: `Log.append`, `RESOLVERS.seed`.
  const holder = ts.isClassLike(parent) ? parent : ts.isObjectLiteralExpression(parent) ? parent.parent : undefined;
  if (ts.isMethodDeclaration(node) || ts.isAccessor(node) || ts.isConstructorDeclaration(node)) {
    const owner = holder && ts.isClassLike(holder) ? holder.name?.getText() : holder && nameOfHolder(holder);
    if (owner !== undefined) return `${owner}.${name}`;
  }
  return name;
}

function nameOfHolder(node: ts.Node): string | undefined {
  return ts.isVariableDeclaration(node) || ts.isPropertyAssignment(node) ? node.name.getText() : undefined;
}

/** What breaks the rules, one message each; empty when the tree holds them. */
export function lengthProblems(functions: readonly FunctionLength[], rules: LengthRules): string[] {
  const problems: string[] = [];
  const where = (f: FunctionLength) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`;
  for (const entry of rules.allowed) {
    const matches = functions.filter((f) => f.file === entry.file && f.name === entry.name);
    const longest = Math.max(0, ...matches.map((f) => f.lines));
    if (longest <= rules.limit)
      problems.push(
        `${entry.file} ${entry.name}: allowed over ${rules.limit} lines but now ${longest === 0 ? "gone" : `${longest} lines`}; remove its entry`,
      );
    else if (longest > entry.maxLines)
      problems.push(`${entry.file} ${entry.name}: ${longest} lines, more than the ${entry.maxLines} it was allowed`);
  }
  const isAllowed = (f: FunctionLength) => rules.allowed.some((a) => a.file === f.file && a.name === f.name);
  const rest = functions.filter((f) => !isAllowed(f));
  for (const f of rest) {
    if (f.lines > rules.limit) problems.push(`${where(f)}: over ${rules.limit} lines; split it along its seams`);
  }
  const longest = Math.max(0, ...rest.map((f) => f.lines));
  if (longest > rules.longest)
    problems.push(`the longest function is ${longest} lines, over the ratchet's ${rules.longest}`);
  else if (longest < rules.longest)
    problems.push(
      `the longest function is now ${longest} lines: lower the ratchet from ${rules.longest} to ${longest}`,
    );
  return problems;
}

/** The `count` longest functions, longest first, as `file:line name (n lines)`. */
export function longestFunctions(functions: readonly FunctionLength[], count: number): string[] {
  return [...functions]
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line)
    .slice(0, count)
    .map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`);
}
