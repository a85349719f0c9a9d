/*
 * The door to the topics: LogDir (log-dir.ts) loads them through here at the first
 * `dir.topic()`. An `import()`, so a bundler that splits puts them in a chunk of their own, which
 * a directory of plain logs never loads (docs/entry-points.md). The web demo, one classic script
 * that opens no topic, swaps this file for one that refuses (web/build.mjs).
 */
export function loadTopics(): Promise<typeof import("./dir-topics.js")> {
  return import("./dir-topics.js");
}
