/**
 * Group commit for a better-sqlite3 connection: writes queued in the same turn of the event loop run in one
 * transaction, so a busy proxy pays for one commit (and one write of each touched page) per turn instead of one per
 * write. Each promise settles only after its transaction committed, so nothing is acknowledged before it is in the
 * write-ahead log. A failing write is undone alone (SQLite rolls back the failed statement); the others commit.
 */
import type { Database } from 'better-sqlite3';

interface Pending {
  work: () => unknown;
  resolve: (value: never) => void;
  reject: (err: unknown) => void;
}

export class GroupCommit {
  #queue: Pending[] = [];
  #scheduled = false;

  /**
   * @param database the open connection, or null once closed (queued writes are then refused)
   * @param onCommitFailure called when a whole transaction failed to commit, before its writes are rejected
   * @param beforeCommit runs inside the transaction after the batch's writes: work the writes gathered to do once per
   *   commit rather than once per write. If it throws, nothing of the batch is stored.
   * @param isolateOnFailure for writes of several statements: the batch first runs without a savepoint per write
   *   (savepoints cost as much as the writes themselves); if any write fails, the whole batch is rolled back,
   *   `onCommitFailure` is called, and the batch runs again with each write in its own savepoint, so a write that
   *   failed halfway leaves nothing behind and the others still commit. Writes must then be safe to run twice.
   */
  constructor(
    private readonly database: () => Database | null,
    private readonly onCommitFailure: () => void = () => undefined,
    private readonly beforeCommit: () => void = () => undefined,
    private readonly isolateOnFailure = false,
  ) {}

  /** Queues `work` for the next commit; resolves with its result once committed. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits everything queued now (also called before closing). */
  flush(): void {
    this.#scheduled = false;
    const batch = this.#queue.splice(0);
    if (batch.length === 0) return;
    const db = this.database();
    if (db === null) {
      for (const op of batch) op.reject(new Error('the database is closed'));
      return;
    }
    let outcomes: Outcome[];
    try {
      outcomes = this.isolateOnFailure ? this.#commitFast(db, batch) ?? this.#commit(db, batch, true) : this.#commit(db, batch, false);
    } catch (err) {
      // The commit itself failed (disk full, I/O error): none of the batch is stored.
      this.onCommitFailure();
      for (const op of batch) op.reject(err);
      return;
    }
    batch.forEach((op, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok === true) op.resolve(outcome.value as never);
      else op.reject(outcome?.err);
    });
  }

  /** Runs the batch in one transaction, each write in its own savepoint when `isolated`; a failed write fails alone. */
  #commit(db: Database, batch: readonly Pending[], isolated: boolean): Outcome[] {
    const outcomes: Outcome[] = [];
    db.transaction(() => {
      for (const op of batch) {
        try {
          outcomes.push({ ok: true, value: isolated ? db.transaction(op.work)() : op.work() });
        } catch (err) {
          outcomes.push({ ok: false, err });
        }
      }
      this.beforeCommit();
    })();
    return outcomes;
  }

  /** Runs the batch without savepoints; undefined (everything rolled back) when any write failed. */
  #commitFast(db: Database, batch: readonly Pending[]): Outcome[] | undefined {
    const outcomes: Outcome[] = [];
    let writeFailed = false;
    try {
      db.transaction(() => {
        for (const op of batch) {
          try {
            outcomes.push({ ok: true, value: op.work() });
          } catch (err) {
            writeFailed = true;
            throw err;
          }
        }
        this.beforeCommit();
      })();
      return outcomes;
    } catch (err) {
      if (!writeFailed) throw err;
      // The transaction rolled back: undo what the writes noted in memory, then run them again isolated.
      this.onCommitFailure();
      return undefined;
    }
  }
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };
