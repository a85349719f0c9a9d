/**
 * pagelog/fs: `FsStorage`, the Storage on a real directory (`node:fs/promises`), for Node only.
 * In Node the package root exports it too (its `node` condition); this subpath is the explicit
 * import, typed under every `moduleResolution` (docs/entry-points.md).
 */
export { FsStorage } from "./storage/fs-storage.js";
