/**
 * The package root in Node (the `node` export condition): the browser-clean root (`src/index.ts`)
 * plus `FsStorage`, and `LogDir.open(path)` opening an `FsStorage` rooted at the path.
 * docs/entry-points.md explains the split.
 */
import { setPathStorageOpener } from "./log/options/path-storage.js";
import { FsStorage } from "./storage/fs-storage.js";

export * from "./index.js";
export { FsStorage };

// Kept in this entry itself, not in a module it imports: the package is `sideEffects: false`
// except for this file, so a bundler may drop a side-effect-only import but never this statement.
setPathStorageOpener((path, options) => FsStorage.open(path, { create: options?.readOnly !== true }));
