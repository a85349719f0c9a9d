/*
 * The door to the follower's part: the written tail (state/written-tail.ts) and the reads it
 * serves (follow-tail.ts), and the batched wake-ups (follow-coalesce.ts). A `records({ follow:
 * true })` iteration loads it through here when it first waits at the end (records-body.ts
 * `awaitChange`), outside the log's queue and failure guard: a chunk that fails to load fails
 * that step of that iteration, never the log. An `import()`, so a bundler that splits puts it in a
 * chunk of its own, which a page that never follows a log never loads (docs/entry-points.md).
 * Until it is loaded no log keeps a written tail (a writer nobody follows keeps nothing).
 */
import { lazyPart } from "../../util/lazy-part.js";

export const loadFollower = lazyPart(() => import("./follow-tail.js"));
