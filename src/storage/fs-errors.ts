/**
 * Maps `node:fs` errors onto pagelog's stable codes. The OS error stays reachable as `cause`, with
 * its `code` (`ENOSPC`) and `syscall` (`write`), so nothing the OS said is lost; the message names
 * the storage operation and the storage-relative path, never the absolute one.
 */
import { ErrorCode, PagelogError } from "../errors.js";

/** The OS `code` of a `node:fs` error (`"ENOENT"`), or undefined for anything else. */
export function osErrorCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

/** Which pagelog code an OS error code becomes. Everything without a code of its own is `PAGELOG_IO`. */
export function codeForOsError(osCode: string | undefined): ErrorCode {
  switch (osCode) {
    case "ENOENT":
    // A path component that is a file ("a.log/b") means the directory the caller named is not there.
    case "ENOTDIR":
      return ErrorCode.NOT_FOUND;
    case "ENOSPC":
    // Out of quota is, for the writer, the same condition as a full device.
    case "EDQUOT":
      return ErrorCode.NO_SPACE;
    default:
      return ErrorCode.IO;
  }
}

/**
 * Wraps whatever a `node:fs` call threw into a {@link PagelogError} for operation `op` on the
 * storage-relative `path`. A `PagelogError` passes through unchanged (it already says what failed).
 */
export function fromFsError(err: unknown, op: string, path: string): PagelogError {
  if (err instanceof PagelogError) return err;
  const osCode = osErrorCode(err);
  // Node's message is "ENOENT: no such file or directory, open '/abs/path'": keep the part before
  // the absolute path, which would leak the root and differ between machines.
  let reason = osCode ?? "unknown error";
  if (err instanceof Error) {
    const comma = err.message.indexOf(", ");
    reason = comma > 0 ? err.message.slice(0, comma) : err.message;
  }
  const shown = path === "" ? "." : path;
  return new PagelogError(`${op} ${JSON.stringify(shown)} failed: ${reason}`, codeForOsError(osCode), {
    cause: err,
    path,
  });
}
