/**
 * Storage paths: relative, `/`-separated names inside a storage root. Both storages normalize
 * through here, so a path that one rejects the other rejects too (the contract suite checks it).
 */
import { ErrorCode, PagelogError } from "../errors.js";

/** The root directory's normalized name. */
export const ROOT = "";

function invalid(path: string, why: string): PagelogError {
  return new PagelogError(`invalid storage path ${JSON.stringify(path)}: ${why}`, ErrorCode.INVALID_PATH, { path });
}

/**
 * Checks a path and returns its normalized form (`""` for the root, otherwise segments joined by
 * `/` with no leading or trailing slash). Rejects, with `PAGELOG_INVALID_PATH`, anything that
 * could name something outside the root or mean two things on two platforms: absolute paths,
 * `..` and `.` segments, empty segments (`a//b`), backslashes and NUL.
 */
export function normalizePath(path: unknown, { allowRoot = false } = {}): string {
  if (typeof path !== "string") throw new TypeError(`path must be a string, got ${typeof path}`);
  if (path.includes("\0")) throw invalid(path, "contains NUL");
  if (path.includes("\\")) throw invalid(path, "contains a backslash");
  if (path.startsWith("/")) throw invalid(path, "is absolute");
  if (path === "" || path === ".") {
    if (allowRoot) return ROOT;
    throw invalid(path, "names the root directory, not a file");
  }
  const trimmed = path.endsWith("/") ? path.slice(0, -1) : path;
  for (const segment of trimmed.split("/")) {
    if (segment === "") throw invalid(path, "has an empty segment");
    if (segment === "..") throw invalid(path, "escapes the root with '..'");
    if (segment === ".") throw invalid(path, "has a '.' segment");
  }
  return trimmed;
}

/** The directory holding `path` (`""` for a top-level name). `path` must be normalized. */
export function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? ROOT : path.slice(0, slash);
}

/** The last segment of a normalized path. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** Joins a normalized directory and a name. */
export function joinPath(dir: string, name: string): string {
  return dir === ROOT ? name : `${dir}/${name}`;
}

/** Validates a byte position or length argument. */
export function checkNonNegativeInteger(value: unknown, name: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative safe integer, got ${String(value)}`);
  }
  return value;
}

/** `path` is `target` or lies inside the directory `target` (both normalized). */
export function isAtOrUnder(path: string, target: string): boolean {
  return path === target || path.startsWith(`${target}/`);
}
