/** The durable, bounded audit outbox (SQLite). */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteAuditOutbox } from '../../service/storage/sqlite/audit-outbox.js';
import { tempDir } from '../helpers/junction.js';

const open: SqliteAuditOutbox[] = [];

async function outboxAt(file: string): Promise<SqliteAuditOutbox> {
  const outbox = new SqliteAuditOutbox({ file });
  await outbox.open();
  open.push(outbox);
  return outbox;
}

afterEach(async () => {
  for (const outbox of open.splice(0)) await outbox.close();
});

describe('audit outbox', () => {
  it('keeps messages in order and removes them through a sequence number', async () => {
    const outbox = await outboxAt(join(await tempDir(), 'audit-outbox.sqlite'));
    for (const m of ['one', 'two', 'three']) expect(await outbox.push(m, 10)).toBe(0);
    expect(outbox.size()).toBe(3);
    const [first, second] = outbox.peek(2);
    expect([first?.message, second?.message]).toEqual(['one', 'two']);
    outbox.removeThrough(second?.seq ?? 0);
    expect(outbox.size()).toBe(1);
    expect(outbox.peek(10).map((q) => q.message)).toEqual(['three']);
  });

  it('drops the oldest past the bound and says how many', async () => {
    const outbox = await outboxAt(join(await tempDir(), 'audit-outbox.sqlite'));
    expect(await outbox.push('a', 2)).toBe(0);
    expect(await outbox.push('b', 2)).toBe(0);
    expect(await outbox.push('c', 2)).toBe(1);
    // A smaller bound after a restart drops down to it at once.
    expect(await outbox.push('d', 1)).toBe(2);
    expect(outbox.peek(10).map((q) => q.message)).toEqual(['d']);
    expect(outbox.size()).toBe(1);
  });

  it('keeps what was queued across a close and reopen, non-ASCII intact', async () => {
    const file = join(await tempDir(), 'nested', 'audit-outbox.sqlite');
    const first = await outboxAt(file);
    await first.push('Zoë 患者', 10);
    await first.push('second', 10);
    await first.close();
    const again = await outboxAt(file);
    expect(again.size()).toBe(2);
    expect(again.peek(10).map((q) => q.message)).toEqual(['Zoë 患者', 'second']);
    // Sequence numbers keep rising, so a new message never sorts before an old one.
    await again.push('third', 10);
    const seqs = again.peek(10).map((q) => q.seq);
    expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
  });

  it('refuses use before open', async () => {
    const outbox = new SqliteAuditOutbox({ file: join(await tempDir(), 'audit-outbox.sqlite') });
    expect(() => outbox.peek(1)).toThrow(/not open/);
    await expect(async () => outbox.push('x', 1)).rejects.toThrow(/not open/);
  });
});
