/**
 * One simulated directory: the entries reads see, the entries the disk holds, and the ordered
 * list of entry changes made since the last `syncDir`. A power cut keeps a prefix of that list
 * (a journaling file system commits metadata in the order it was made), any length from none to
 * all. A rename is one change, so it survives whole or not at all.
 */
import type { SimInode } from "./sim-inode.js";

export type SimNode = SimDir | SimInode;

type EntryChange =
  | { readonly kind: "set"; readonly name: string; readonly node: SimNode }
  | { readonly kind: "delete"; readonly name: string }
  | { readonly kind: "rename"; readonly from: string; readonly to: string; readonly node: SimNode };

export class SimDir {
  /** What `list` and path lookups see. */
  readonly entries = new Map<string, SimNode>();
  /** What the disk holds as of the last syncDir. */
  #durable = new Map<string, SimNode>();
  #pending: EntryChange[] = [];

  get pendingCount(): number {
    return this.#pending.length;
  }

  set(name: string, node: SimNode): void {
    this.entries.set(name, node);
    this.#pending.push({ kind: "set", name, node });
  }

  delete(name: string): void {
    this.entries.delete(name);
    this.#pending.push({ kind: "delete", name });
  }

  rename(from: string, to: string): void {
    const node = this.entries.get(from);
    if (node === undefined) throw new Error(`sim: rename of missing entry ${from}`);
    this.entries.delete(from);
    this.entries.set(to, node);
    this.#pending.push({ kind: "rename", from, to, node });
  }

  /**
   * syncDir: the entries become durable. Returns the nodes this directory held only for a power
   * cut to bring back (removed or replaced since the last sync): nothing can reach them now.
   */
  sync(): SimNode[] {
    // (A rebooted directory is filled through `entries` directly: copy even with nothing pending.)
    const before = this.#pending.length === 0 ? undefined : this.references();
    this.#durable = new Map(this.entries);
    this.#pending = [];
    if (before === undefined) return [];
    const live = new Set(this.entries.values());
    return [...before].filter((node) => !live.has(node));
  }

  /**
   * Every node a read or a power cut can still reach through this directory: its entries, the
   * durable ones, and those of unsynced changes (a cut may keep any prefix of them).
   */
  references(): Set<SimNode> {
    const out = new Set<SimNode>(this.entries.values());
    for (const node of this.#durable.values()) out.add(node);
    for (const change of this.#pending) if (change.kind !== "delete") out.add(change.node);
    return out;
  }

  /** The kinds of the pending changes a reboot that keeps the first `keep` of them loses. */
  lostChanges(keep: number): Array<EntryChange["kind"]> {
    return this.#pending.slice(keep).map((change) => change.kind);
  }

  /** The entries a reboot finds if the first `keep` pending changes reached the disk. */
  survivingEntries(keep: number): Map<string, SimNode> {
    const out = new Map(this.#durable);
    for (const change of this.#pending.slice(0, keep)) {
      if (change.kind === "set") out.set(change.name, change.node);
      else if (change.kind === "delete") out.delete(change.name);
      else {
        out.delete(change.from);
        out.set(change.to, change.node);
      }
    }
    return out;
  }
}
