/**
 * The audit outbox on PostgreSQL: the outbox contract, then what sharing one queue between instances adds: claims
 * that two senders never share, claims that lapse when their instance dies, and forwarders on several instances
 * that together send each event once.
 */
import { DOMParser } from '@xmldom/xmldom';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { AuditForwarder } from '../../service/audit/forwarder.js';
import { userLoginEvent } from '../../service/audit/events.js';
import { PostgresDatabase } from '../../service/storage/postgres/index.js';
import { PostgresAuditOutbox } from '../../service/storage/postgres/audit-outbox.js';
import type { PostgresAuditOutboxOptions } from '../../service/storage/postgres/audit-outbox.js';
import { createTestDatabase, newSchemaName, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { until } from '../helpers/wait.js';
import { ManualTimers, streamCollector } from '../audit/forwarder-peers.js';
import { describeAuditOutboxContract } from './audit-outbox-contract.js';

const silent = pino({ level: 'silent' });
let database: Promise<TestDatabase> | undefined;
afterAll(async () => {
  await (await database)?.drop();
});

async function databaseUrl(): Promise<string> {
  database ??= createTestDatabase();
  return (await database).url;
}

describeAuditOutboxContract('PostgreSQL', async (location) => {
  const url = await databaseUrl();
  const schema = location ?? newSchemaName();
  return {
    outbox: new PostgresAuditOutbox({ database: new PostgresDatabase({ settings: settingsFor(url), logger: silent, schema }) }),
    location: schema,
    cleanup: () => runSql(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`).then(() => undefined),
  };
});

describe('PostgreSQL audit outbox shared by instances', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function sharedSchema(): Promise<string> {
    const schema = newSchemaName();
    const url = await databaseUrl();
    cleanup.push(() => runSql(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`).then(() => undefined));
    return schema;
  }

  /** One instance's outbox over `schema`, with a pool of its own. */
  async function instance(schema: string, options: Partial<PostgresAuditOutboxOptions> = {}): Promise<PostgresAuditOutbox> {
    const outbox = new PostgresAuditOutbox({ database: new PostgresDatabase({ settings: settingsFor(await databaseUrl()), logger: silent, schema }), ...options });
    await outbox.open();
    cleanup.push(() => outbox.close());
    return outbox;
  }

  it('never gives two senders the same message, however they interleave, and each removes only its own', async () => {
    const schema = await sharedSchema();
    const [a, b] = await Promise.all([instance(schema, { instance: 'a' }), instance(schema, { instance: 'b' })]);
    for (let i = 0; i < 60; i++) await (i % 2 === 0 ? a : b).push(`m${i}`, 1000);
    const taken: string[][] = [[], []];
    // Both claim batches at the same moments, until the queue is empty.
    for (;;) {
      const [fromA, fromB] = await Promise.all([a.peek(7), b.peek(7)]);
      if (fromA.length === 0 && fromB.length === 0) break;
      for (const [i, batch] of [fromA, fromB].entries()) taken[i]?.push(...batch.map((q) => q.message));
      const lastA = fromA.at(-1);
      const lastB = fromB.at(-1);
      // B's removal runs first and names A's last message too: A's stay until A removes them.
      if (lastB !== undefined) await b.removeThrough(Math.max(lastB.seq, lastA?.seq ?? 0));
      if (lastA !== undefined) await a.removeThrough(lastA.seq);
    }
    const [byA, byB] = taken as [string[], string[]];
    expect(byA.length).toBeGreaterThan(0);
    expect(byB.length).toBeGreaterThan(0);
    expect(byA.filter((m) => byB.includes(m))).toEqual([]);
    expect([...byA, ...byB].sort()).toEqual(Array.from({ length: 60 }, (_, i) => `m${i}`).sort());
    expect(a.size()).toBe(0);
  });

  it('lets another instance send what a dead one had claimed once its lease lapses, and not before', async () => {
    const schema = await sharedSchema();
    let clock = 1_000_000;
    const now = () => clock;
    const dying = await instance(schema, { instance: 'dying', leaseMs: 30_000, now });
    const survivor = await instance(schema, { instance: 'survivor', leaseMs: 30_000, now });
    for (const m of ['x', 'y', 'z']) await dying.push(m, 10);
    expect((await dying.peek(2)).map((q) => q.message)).toEqual(['x', 'y']);
    // The dying instance stops here without closing; its claim on x and y stands for 30 s.
    expect((await survivor.peek(10)).map((q) => q.message)).toEqual(['z']);
    clock += 29_999;
    expect((await survivor.peek(10)).map((q) => q.message)).toEqual(['z']);
    clock += 2;
    expect((await survivor.peek(10)).map((q) => q.message)).toEqual(['x', 'y', 'z']);
    // The dead instance's late removal takes nothing that is no longer its own.
    await dying.removeThrough(3_000_000);
    expect((await survivor.peek(10)).map((q) => q.message)).toEqual(['x', 'y', 'z']);
  });

  it('gives its claims back when it closes, so another instance sends them at once', async () => {
    const schema = await sharedSchema();
    const leaving = new PostgresAuditOutbox({ database: new PostgresDatabase({ settings: settingsFor(await databaseUrl()), logger: silent, schema }) });
    await leaving.open();
    const staying = await instance(schema);
    await leaving.push('a', 10);
    expect(await leaving.peek(10)).toHaveLength(1);
    expect(await staying.peek(10)).toEqual([]);
    await leaving.close();
    expect((await staying.peek(10)).map((q) => q.message)).toEqual(['a']);
  });

  it('has forwarders on three instances send every event once between them', async () => {
    const schema = await sharedSchema();
    const repo = await streamCollector();
    cleanup.push(() => repo.close());
    const senders = await Promise.all(['one', 'two', 'three'].map(async (name) => {
      const outbox = new PostgresAuditOutbox({ database: new PostgresDatabase({ settings: settingsFor(await databaseUrl()), logger: silent, schema }), instance: name });
      const sender = new AuditForwarder({ transport: 'tcp', host: '127.0.0.1', port: repo.port, outbox, maxQueued: 10_000, retryMaxSeconds: 60, logger: silent, timers: new ManualTimers(), hostname: name });
      await sender.start();
      cleanup.push(() => sender.stop());
      return sender;
    }));
    const users = Array.from({ length: 150 }, (_, i) => `user-${i}`);
    await Promise.all(users.map((username, i) => (senders[i % 3] as AuditForwarder).add(userLoginEvent({ username, address: '10.0.0.9', method: 'local', success: true, auditSourceID: 'Junction', at: new Date('2026-01-02T03:04:05Z') }))));
    await until('every event delivered', () => (repo.messages.length >= users.length ? true : undefined), 20_000);
    const received = repo.messages.map((m) => new DOMParser().parseFromString(m.slice(m.indexOf('<?xml')), 'text/xml').getElementsByTagName('ActiveParticipant')[0]?.getAttribute('UserID') ?? '');
    expect([...received].sort()).toEqual([...users].sort());
    expect(senders.reduce((sum, s) => sum + s.status().sent, 0)).toBe(users.length);
    const left = await runSql(await databaseUrl(), `SELECT count(*)::int AS n FROM ${schema}.audit_outbox`);
    expect(left.rows).toEqual([{ n: 0 }]);
  });
});
