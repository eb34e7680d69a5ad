/**
 * Whether new transactions may start at all, asked before anything is written (issue 33): the disk watcher
 * (disk/watcher.ts) refuses them while the data folder is below its free-space floor, so a sender is told to try
 * again instead of a transaction failing half-way through its body.
 */
export interface Admission {
  /** Why new transactions are refused now (words for the sender), or undefined. Cheap: asked for every one. */
  refusal(): string | undefined;
  /** A write on the transaction path failed: the reason may be the disk, so it is looked at now. */
  storeFailed(): void;
}
