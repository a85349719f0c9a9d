/**
 * The docs as a house: every relative link of the README, the CHANGELOG and docs/ reaches a file
 * that exists and, with a `#fragment`, a heading of it (as GitHub makes heading ids), so moving a
 * section cannot silently break the links into it; the README is the front page (what pagelog is,
 * the quick start, the guarantees, the errors, a map of docs/) and the API reference lives in
 * docs/api.md. Each rule is also shown to refuse a planted violation.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "../../..");
const DOCS = [
  "README.md",
  "CHANGELOG.md",
  ...readdirSync(join(repo, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** The text of a markdown file outside its fenced code blocks (links in code are code). */
function prose(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```\s*$/gm, "");
}

/** GitHub's heading ids: lower case, punctuation dropped, spaces to `-`, repeats suffixed -1, -2. */
function headingIds(text: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

/** The broken relative links of `doc` (a path under the repo) given its text: "doc: target (why)". */
function brokenLinks(doc: string, text: string, read: (path: string) => string | undefined): string[] {
  const broken: string[] = [];
  const outsideCode = prose(text).replace(/`[^`\n]*`/g, "");
  for (const [, target] of outsideCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z][a-z+.-]*:/i.test(target!)) continue; // https:, mailto:
    const [path, fragment] = target!.split("#", 2) as [string, string | undefined];
    const file = path === "" ? doc : relative(repo, resolve(repo, dirname(doc), path));
    const content = read(file);
    if (content === undefined) {
      broken.push(`${doc}: ${target} (no file ${file})`);
      continue;
    }
    if (fragment !== undefined && file.endsWith(".md") && !headingIds(content).has(fragment)) {
      broken.push(`${doc}: ${target} (no heading #${fragment} in ${file})`);
    }
  }
  return broken;
}

const readRepo = (path: string): string | undefined => {
  const full = join(repo, path);
  if (!existsSync(full)) return undefined;
  return path.endsWith(".md") ? readFileSync(full, "utf8") : "";
};

describe("the links of the README, the CHANGELOG and docs/", () => {
  it("reach a file that exists and, with a #fragment, a heading of it", () => {
    expect(DOCS.flatMap((doc) => brokenLinks(doc, readRepo(doc)!, readRepo))).toEqual([]);
  });

  it("a planted link to a moved section, a missing file or a heading of the same page is refused", () => {
    const planted = [
      "[log API](../README.md#the-log-api)",
      "[gone](nowhere.md)",
      "[here](#no-such-heading)",
      "[ok](api.md#the-log-api) [ok](#a-heading) `[code](x.md)`",
      "## A heading",
    ].join("\n");
    const files: Record<string, string> = {
      "docs/planted.md": planted,
      "README.md": "# pagelog\n## Errors\n",
      "docs/api.md": "# The API\n## The log API\n",
    };
    expect(brokenLinks("docs/planted.md", planted, (p) => files[p])).toEqual([
      "docs/planted.md: ../README.md#the-log-api (no heading #the-log-api in README.md)",
      "docs/planted.md: nowhere.md (no file docs/nowhere.md)",
      "docs/planted.md: #no-such-heading (no heading #no-such-heading in docs/planted.md)",
    ]);
  });

  it("heading ids are GitHub's", () => {
    expect([...headingIds("# A native CRC-32C, as a recipe\n## Synchronous I/O and `the` loop\n## X\n## X")]).toEqual([
      "a-native-crc-32c-as-a-recipe",
      "synchronous-io-and-the-loop",
      "x",
      "x-1",
    ]);
  });
});

/** What the README's front page lacks: problems, empty when it is one. */
function frontPageProblems(readme: string, docPages: string[]): string[] {
  const problems: string[] = [];
  const sections = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
  for (const needed of ["Quick start", "Guarantees", "Errors", "Docs"]) {
    if (!sections.includes(needed)) problems.push(`no section ${needed}`);
  }
  // The API reference is docs/api.md's: a README that grows it again is two references to keep.
  const homes = { "The log API": "api", Consuming: "api", Storage: "api", Imports: "api", "The command line": "cli" };
  for (const [moved, home] of Object.entries(homes)) {
    if (sections.includes(moved)) problems.push(`section ${moved} belongs in docs/${home}.md`);
  }
  const map = /^## Docs\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? "";
  for (const page of docPages) if (!map.includes(`](${page})`)) problems.push(`the map of docs/ misses ${page}`);
  return problems;
}

describe("the README is the front page; the API reference is docs/api.md", () => {
  const docPages = DOCS.filter((d) => d.startsWith("docs/"));

  it("the README has its sections, maps every page of docs/, and holds no API reference", () => {
    expect(frontPageProblems(readFileSync(join(repo, "README.md"), "utf8"), docPages)).toEqual([]);
    const api = readFileSync(join(repo, "docs/api.md"), "utf8");
    for (const section of ["## The log API", "## Consuming", "## Storage"]) expect(api).toContain(`\n${section}\n`);
  });

  it("a README with the API reference back inline, or a page missing from its map, is refused", () => {
    const readme = "## Quick start\n## Guarantees\n## Errors\n## Docs\n[a](docs/a.md)\n## The log API\n## Licence\n";
    expect(frontPageProblems(readme, ["docs/a.md", "docs/b.md"])).toEqual([
      "section The log API belongs in docs/api.md",
      "the map of docs/ misses docs/b.md",
    ]);
  });
});
