/** Group commit on a real SQLite database: one commit per batch, and a write that fails halfway leaves nothing behind. */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { GroupCommit } from '../../service/storage/sqlite/group-commit.js';

describe('GroupCommit', () => {
  let db: Database.Database;

  afterEach(() => db.close());

  function setUp(): { write: (x: number, y: number | null) => () => void; rows: () => number[] } {
    db = new Database(':memory:');
    db.exec('CREATE TABLE t (x INTEGER NOT NULL UNIQUE); CREATE TABLE u (y INTEGER NOT NULL);');
    const t = db.prepare('INSERT INTO t (x) VALUES (?)');
    const u = db.prepare('INSERT INTO u (y) VALUES (?)');
    // Two statements per write, as an audit's row and its terms: the second fails when y is null.
    return {
      write: (x, y) => () => {
        t.run(x);
        u.run(y);
      },
      rows: () => db.prepare<[], { x: number }>('SELECT x FROM t ORDER BY x').all().map((r) => r.x),
    };
  }

  it('isolates a write that fails halfway: its first statement is undone, the others commit', async () => {
    const { write, rows } = setUp();
    let rollbacks = 0;
    const commits = new GroupCommit(() => db, () => rollbacks++, undefined, true);
    const results = await Promise.allSettled([commits.run(write(1, 1)), commits.run(write(2, null)), commits.run(write(3, 3))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/NOT NULL/);
    expect(rows()).toEqual([1, 3]);
    expect(db.prepare('SELECT count(*) AS n FROM u').get()).toEqual({ n: 2 });
    // The fast attempt was rolled back once, so the writes' notes in memory could be undone before the retry.
    expect(rollbacks).toBe(1);
  });

  it('commits a clean batch in one attempt without savepoints', async () => {
    const { write, rows } = setUp();
    let rollbacks = 0;
    const commits = new GroupCommit(() => db, () => rollbacks++, undefined, true);
    await Promise.all([1, 2, 3, 4].map((x) => commits.run(write(x, x))));
    expect(rows()).toEqual([1, 2, 3, 4]);
    expect(rollbacks).toBe(0);
  });

  it('without isolation keeps what a failed write did before it failed (single-statement writes only)', async () => {
    const { write, rows } = setUp();
    const commits = new GroupCommit(() => db);
    const results = await Promise.allSettled([commits.run(write(1, 1)), commits.run(write(2, null))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect(rows()).toEqual([1, 2]);
  });
});
