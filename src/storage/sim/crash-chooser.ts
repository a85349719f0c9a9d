/**
 * Who decides what a power cut keeps. `SimStorage.crash()` asks a CrashChooser about every
 * undecided thing: each dirty page, each unsynced size change, each directory's unsynced entry
 * changes. The default draws from the seeded PRNG; a test that wants to enumerate crash states
 * (as CrashMonkey does) passes its own.
 */
import { Prng } from "./prng.js";

/** A source of random draws (the simulator's seeded PRNG is one). */
export interface RandomSource {
  /** A uniform integer in [0, n). */
  int(n: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
}

/** A byte range [start, end). */
export interface ByteRange {
  /** First byte of the range. */
  readonly start: number;
  /** One past the last byte. */
  readonly end: number;
}

/**
 * What a power cut did to one dirty page.
 * - `written`: the whole page reached the disk.
 * - `lost`: none of it did; the disk keeps what was there before.
 * - `{ torn }`: `torn[i]` says whether sector i reached the disk. Any subset, not only a prefix:
 *   disks reorder sector writes inside a request.
 */
export type PageFate = "written" | "lost" | { readonly torn: readonly boolean[] };

/**
 * Who decides what a power cut keeps: `SimStorage.crash(chooser)` asks it about every dirty page, unsynced size change
 * and directory's unsynced entry changes. `randomChooser(seed)` draws at random; `keepEverything` and `keepNothing`
 * are the two extremes; a test that enumerates crash states passes its own.
 */
export interface CrashChooser {
  /** The fate of dirty page `page` (of `sectors` sectors) of the file last named `path`. */
  pageFate(path: string, page: number, sectors: number): PageFate;
  /**
   * Whether the file's size changes since its last sync reached the disk (the inode was written
   * back): true gives the cached size, with any part no page write covered reading as zeros;
   * false gives the durable size, undoing truncations.
   */
  sizeCommitted(path: string, durableSize: number, cachedSize: number): boolean;
  /**
   * How many of the directory's `pending` unsynced entry changes survive, as a prefix in the
   * order they were made (a journaling file system commits metadata in order): 0 to `pending`.
   */
  dirPrefix(dir: string, pending: number): number;
}

/**
 * The default chooser: every outcome the model allows, each possible, drawn from `seed` (a
 * number seeds pagelog's own PRNG, so the same seed gives the same fates) or from any
 * {@link RandomSource}. `sim.crash(randomChooser(7))` replays the crash of seed 7.
 */
export function randomChooser(seed: number | RandomSource): CrashChooser {
  if (typeof seed === "number") {
    if (!Number.isSafeInteger(seed))
      throw new TypeError(`randomChooser(seed): seed must be a safe integer, got ${String(seed)}`);
    return chooserFrom(new Prng(seed));
  }
  if (
    typeof seed !== "object" ||
    seed === null ||
    typeof seed.int !== "function" ||
    typeof seed.chance !== "function"
  ) {
    throw new TypeError("randomChooser takes a seed (a safe integer) or a RandomSource ({ int(n), chance(p) })");
  }
  return chooserFrom(seed);
}

/** @internal The default chooser drawing from a source the simulator owns (not part of the API). */
export function chooserFrom(prng: RandomSource): CrashChooser {
  return {
    pageFate(_path, _page, sectors) {
      const roll = prng.int(sectors > 1 ? 3 : 2);
      if (roll === 0) return "written";
      if (roll === 1) return "lost";
      // A torn page: each sector independently, but never all or none (those are the cases above).
      const torn: boolean[] = [];
      for (let i = 0; i < sectors; i++) torn.push(prng.chance(0.5));
      if (torn.every(Boolean)) torn[prng.int(sectors)] = false;
      if (!torn.some(Boolean)) torn[prng.int(sectors)] = true;
      return { torn };
    },
    sizeCommitted: () => prng.chance(0.5),
    dirPrefix: (_dir, pending) => prng.int(pending + 1),
  };
}

/** Page and size fates, counted as `chooser` decides them (directory changes are counted by the caller). */
interface FateCounts {
  pagesWritten: number;
  pagesLost: number;
  pagesTorn: number;
  sizesKept: number;
  sizesUndone: number;
}

/** @internal `chooser`, counting each page and size fate it decides into `counts`. */
export function countingChooser(chooser: CrashChooser, counts: FateCounts): CrashChooser {
  return {
    pageFate(path, page, sectors) {
      const fate = chooser.pageFate(path, page, sectors);
      if (fate === "written") counts.pagesWritten++;
      else if (fate === "lost") counts.pagesLost++;
      else counts.pagesTorn++;
      return fate;
    },
    sizeCommitted(path, durableSize, cachedSize) {
      const kept = chooser.sizeCommitted(path, durableSize, cachedSize);
      if (kept) counts.sizesKept++;
      else counts.sizesUndone++;
      return kept;
    },
    dirPrefix: (dir, pending) => chooser.dirPrefix(dir, pending),
  };
}

/** A chooser that keeps everything: the disk after an orderly write-back of the whole cache. */
export const keepEverything: CrashChooser = {
  pageFate: () => "written",
  sizeCommitted: () => true,
  dirPrefix: (_dir, pending) => pending,
};

/** A chooser that keeps nothing that was not synced. */
export const keepNothing: CrashChooser = {
  pageFate: () => "lost",
  sizeCommitted: () => false,
  dirPrefix: () => 0,
};
