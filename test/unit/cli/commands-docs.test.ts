/**
 * docs/cli.md opens with a table of the commands; `pagelog --help` lists the ones that exist
 * (src/cli/commands.ts). A command added, removed or renamed on one side only fails here, so
 * the table cannot quietly leave one out again (issue 31: it had no `check` row).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "./helpers.js";

const CLI_DOCS = resolve(import.meta.dirname, "../../../docs/cli.md");

/** The command names of the first table of docs/cli.md: its rows' `pagelog <name> …` cells. */
function documentedCommands(markdown: string): string[] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => /^\|\s*command\s*\|/.test(l));
  if (start < 0) return [];
  const names: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    const match = /^\|\s*`pagelog ([a-z][a-z-]*)[^`]*`\s*\|/.exec(line);
    names.push(match?.[1] ?? `unreadable row: ${line.slice(0, 40)}`);
  }
  return names;
}

/** The commands `pagelog --help` lists under "Commands:". */
function helpCommands(help: string): string[] {
  const lines = help.split("\n");
  const names: string[] = [];
  for (const line of lines.slice(lines.indexOf("Commands:") + 1)) {
    const match = /^ {2}([a-z][a-z-]*) {2,}\S/.exec(line);
    if (match === null) break;
    names.push(match[1]!);
  }
  return names;
}

describe("docs/cli.md's command table", () => {
  it("lists exactly the commands pagelog has, in the same order as --help", async () => {
    const help = await cli(["--help"]);
    const commands = helpCommands(help.stdout);
    expect(commands).toContain("verify"); // the parse found the list at all
    const docs = readFileSync(CLI_DOCS, "utf8");
    expect(documentedCommands(docs)).toEqual(commands);
    // And each has its own section.
    expect([...docs.matchAll(/^## pagelog ([a-z-]+)$/gm)].map((m) => m[1])).toEqual(commands);
  });

  it("the comparison sees a missing row and an extra one", () => {
    const table = [
      "| command | what it does |",
      "| --- | --- |",
      "| `pagelog demo` | the demo |",
      "| `pagelog dump <file\\|dir>` | dumps |",
      "",
      "| not | this table |",
    ].join("\n");
    expect(documentedCommands(table)).toEqual(["demo", "dump"]);
    expect(documentedCommands(table)).not.toEqual(["demo", "dump", "check"]);
  });
});
