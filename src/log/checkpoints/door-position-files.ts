/*
 * The door to consumer positions (consumer-positions.ts: what an open reads of the positions
 * files, each consumer's store and its queue of commits; with position-files.ts: reading a
 * positions file, the consumer's directories and lock before its first write, each write of its
 * file). An open whose root holds positions, a consumer's first `refresh()` and its first commit
 * load it through here, each already asynchronous. An `import()`, so a bundler that splits puts
 * it in a chunk of its own, which a page whose directories keep no positions and that commits
 * none never loads (docs/entry-points.md). `dir.consumer(name)` stays synchronous
 * (consumers/dir-consumers.ts). A chunk that fails to load fails the calls that waited for it
 * (the open, the refresh, the commits), and the next one loads it.
 */
import { lazyPart } from "../../util/lazy-part.js";

export const loadPositionFiles = lazyPart(() => import("./consumer-positions.js"));
