/**
 * The audit outbox contract: what the forwarder (service/audit/forwarder.ts) can observe of an `AuditOutbox`, which
 * every engine must show. Sharing between instances is tested beside the engines that share.
 *
 * Usage: `describeAuditOutboxContract('SQLite', openFixture)` from a `*.test.ts` file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditOutbox } from '../../service/storage/audit-outbox.js';

export interface AuditOutboxFixture {
  /** An outbox that has NOT been opened yet. */
  outbox: AuditOutbox;
  /** Where the data lives; pass it back to the factory to reopen the same queue. */
  location: string;
  /** Deletes the data at `location`, after the suite closed every outbox; tolerates data already gone. */
  cleanup: () => Promise<void>;
}

export type OpenAuditOutboxFixture = (location?: string) => Promise<AuditOutboxFixture>;

export function describeAuditOutboxContract(engine: string, openFixture: OpenAuditOutboxFixture): void {
  describe(`audit outbox contract: ${engine}`, () => {
    const fixtures: AuditOutboxFixture[] = [];

    afterEach(async () => {
      for (const f of fixtures) await f.outbox.close();
      for (const f of fixtures.splice(0)) await f.cleanup();
    });

    async function open(location?: string): Promise<{ outbox: AuditOutbox; location: string }> {
      const fixture = await openFixture(location);
      fixtures.push(fixture);
      await fixture.outbox.open();
      return fixture;
    }

    const messages = async (outbox: AuditOutbox, limit = 100) => (await outbox.peek(limit)).map((q) => q.message);

    it('gives messages oldest first, again until removed, and removes them through a sequence number', async () => {
      const { outbox } = await open();
      for (const m of ['one', 'two', 'three']) expect(await outbox.push(m, 10)).toBe(0);
      expect(outbox.size()).toBe(3);
      const [first, second] = await outbox.peek(2);
      expect([first?.message, second?.message]).toEqual(['one', 'two']);
      // Not yet removed: the same sender is given them again.
      expect(await messages(outbox, 2)).toEqual(['one', 'two']);
      await outbox.removeThrough(second?.seq ?? 0);
      expect(outbox.size()).toBe(1);
      expect(await messages(outbox)).toEqual(['three']);
      await outbox.removeThrough((await outbox.peek(1))[0]?.seq ?? 0);
      expect(await outbox.peek(10)).toEqual([]);
      expect(outbox.size()).toBe(0);
    });

    it('drops the oldest past the bound and says how many', async () => {
      const { outbox } = await open();
      expect(await outbox.push('a', 2)).toBe(0);
      expect(await outbox.push('b', 2)).toBe(0);
      expect(await outbox.push('c', 2)).toBe(1);
      expect(await messages(outbox)).toEqual(['b', 'c']);
      // A smaller bound after a restart drops down to it at once.
      expect(await outbox.push('d', 1)).toBe(2);
      expect(await messages(outbox)).toEqual(['d']);
      expect(outbox.size()).toBe(1);
    });

    it('keeps what was queued across a close and reopen, whole and non-ASCII intact, in order', async () => {
      const { outbox, location } = await open();
      const large = `<85>1 ${'Zoë 患者 <x/> & "q" '.repeat(5000)}`;
      await outbox.push('Zoë 患者', 10);
      await outbox.push(large, 10);
      await outbox.peek(10);
      await outbox.close();
      const again = (await open(location)).outbox;
      expect(again.size()).toBe(2);
      expect(await messages(again)).toEqual(['Zoë 患者', large]);
      // Sequence numbers keep rising, so a new message never sorts before an old one.
      await again.push('third', 10);
      const seqs = (await again.peek(10)).map((q) => q.seq);
      expect(seqs).toHaveLength(3);
      expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
    });

    it('takes many pushes at once, each stored once, the bound kept', async () => {
      const { outbox } = await open();
      const dropped = await Promise.all(Array.from({ length: 50 }, (_, i) => outbox.push(`m${i}`, 40)));
      expect(dropped.reduce((a, b) => a + b, 0)).toBe(10);
      const left = await messages(outbox);
      expect(left).toHaveLength(40);
      expect(new Set(left).size).toBe(40);
      expect(outbox.size()).toBe(40);
    });

    it('refuses use before open and after close', async () => {
      const fixture = await openFixture();
      fixtures.push(fixture);
      await expect(fixture.outbox.peek(1)).rejects.toThrow(/not open/);
      await expect(fixture.outbox.push('x', 1)).rejects.toThrow(/not open/);
      await expect(fixture.outbox.removeThrough(1)).rejects.toThrow(/not open/);
      await fixture.outbox.open();
      await fixture.outbox.close();
      await expect(fixture.outbox.peek(1)).rejects.toThrow(/not open/);
    });
  });
}
