/**
 * The package root in Node (the `node` export condition): the browser-clean root (`src/index.ts`)
 * plus `FsStorage`, and `LogDir.open(path)` opening an `FsStorage` rooted at the path.
 * docs/entry-points.md explains the split.
 */
import { installNativeCrc32c } from "./format/crc32c-accelerator.js";
import { setPathStorageOpener } from "./log/options/path-storage.js";
import { loadNativeCrc32c, warnCrc32cFallback } from "./storage/fs-native-crc32c.js";
import { FsStorage } from "./storage/fs-storage.js";

export * from "./index.js";
export { FsStorage };

// Kept in this entry itself, not in a module it imports: the package is `sideEffects: false`
// except for this file, so a bundler may drop a side-effect-only import but never this statement.
setPathStorageOpener((path, options) => FsStorage.open(path, { create: options?.readOnly !== true }));
// The native CRC-32C (the optional dependency @node-rs/crc32) when it is installed and passes its
// self-test; the pure-JS table otherwise, said once as a process warning. Here for the same reason.
installNativeCrc32c(() => loadNativeCrc32c(), warnCrc32cFallback);
