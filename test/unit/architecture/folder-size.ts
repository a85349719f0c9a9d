/**
 * Files per folder, and the rule that holds them: a folder a reader opens shows one concept's
 * files, few enough to take in at a glance. Past that, the folder is split into folders a
 * newcomer can name (as src/log was split into rooms), not its files merged into longer ones. A
 * pure function of a list of paths, so the test can plant a crowded folder and see it caught.
 */

/** A folder allowed over the limit, and why a split would not follow a concept. */
export interface AllowedFolder {
  folder: string;
  /** Its file count when allowed: more fails, fewer asks to lower it (the list only shrinks). */
  maxFiles: number;
  reason: string;
}

export interface FolderRules {
  /** The rule: no folder holds more files than this (its subfolders do not count)... */
  limit: number;
  /** ...except these. */
  allowed: readonly AllowedFolder[];
}

/** How many files sit directly in each folder of `paths` (repository-relative, `/`-separated files). */
export function filesPerFolder(paths: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const path of paths) {
    const folder = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : ".";
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  return counts;
}

/** What breaks the rule, one message each; empty when every folder holds it. */
export function folderProblems(counts: ReadonlyMap<string, number>, rules: FolderRules): string[] {
  const problems: string[] = [];
  for (const entry of rules.allowed) {
    const files = counts.get(entry.folder) ?? 0;
    if (files <= rules.limit)
      problems.push(
        `${entry.folder}: allowed over ${rules.limit} files but now ${files === 0 ? "gone" : `${files} files`}; remove its entry`,
      );
    else if (files > entry.maxFiles)
      problems.push(`${entry.folder}: ${files} files, more than the ${entry.maxFiles} it was allowed; split it`);
    else if (files < entry.maxFiles)
      problems.push(`${entry.folder}: now ${files} files; lower its maxFiles from ${entry.maxFiles} to ${files}`);
  }
  const allowed = new Set(rules.allowed.map((a) => a.folder));
  for (const [folder, files] of [...counts].sort(([a], [b]) => a.localeCompare(b))) {
    if (files > rules.limit && !allowed.has(folder))
      problems.push(`${folder}: ${files} files, over ${rules.limit}; split it into folders named after its concepts`);
  }
  return problems;
}
