/** The audit log contract on SQLite, and what only the SQLite engine does: its query plans, scan windows and files. */
import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreOpenError } from '../../service/storage/store.js';
import { createSqliteAuditLog } from '../../service/storage/sqlite/audit-log.js';
import { auditQuery, auditSelect } from '../../service/storage/sqlite/audit-query.js';
import type { AuditFilter, AuditLog } from '../../service/storage/audits.js';
import { tempDir } from '../helpers/junction.js';
import { audit, describeAuditLogContract } from './audit-log-contract.js';

const silent = pino({ level: 'silent' });

describeAuditLogContract('SQLite', async (location) => {
  const dir = location ?? (await tempDir('junction-auditcontract-'));
  return {
    log: createSqliteAuditLog({ file: join(dir, 'audits.sqlite'), logger: silent }),
    location: dir,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

describe('SQLite audit log', () => {
  const dirs: string[] = [];
  const logs: AuditLog[] = [];

  afterEach(async () => {
    for (const log of logs.splice(0)) await log.close();
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  async function open(options: { scanWindowRows?: number } = {}): Promise<{ log: AuditLog; file: string; dir: string }> {
    const dir = await tempDir('junction-auditlog-');
    dirs.push(dir);
    const file = join(dir, 'data', 'audits.sqlite');
    const log = createSqliteAuditLog({ file, logger: silent, ...options });
    logs.push(log);
    await log.open();
    return { log, file, dir };
  }

  /** SQLite's plan of a filter's page query, one line per step. */
  function plan(file: string, filter: AuditFilter, keyset = false): string {
    const db = new Database(file, { readonly: true });
    try {
      const query = auditQuery(filter);
      const sql = `EXPLAIN QUERY PLAN ${auditSelect(query, keyset ? ` AND (${query.ts}, ${query.id}) < (?, ?)` : '')} LIMIT 10`;
      const params = [...query.fromParams, ...query.params, ...(keyset ? [1, 'x'] : [])];
      return db.prepare<unknown[], { detail: string }>(sql).all(...params).map((row) => row.detail).join('\n');
    } finally {
      db.close();
    }
  }

  it('reads each filtered page through an index in newest-first order, never the whole table, never a sort', async () => {
    const { log, file } = await open();
    for (let i = 0; i < 50; i++) await log.add(audit(i, { participantObjectIdentification: [{ participantObjectID: `p${i}^^^&1.2&ISO` }] }));
    const cases: [AuditFilter, RegExp][] = [
      [{}, /(SCAN|SEARCH) a USING INDEX audit_time/],
      [{ from: new Date(0), to: new Date() }, /SEARCH a USING INDEX audit_time \(ts>\? AND ts<\?/],
      [{ codes: [{ field: 'eventID', code: '110114' }] }, /SEARCH a USING INDEX audit_event_id \(event_id=\?/],
      [{ codes: [{ field: 'eventTypeCode', code: '110122' }], eventOutcomeIndicator: '0', from: new Date(0) }, /SEARCH a USING INDEX audit_event_type \(event_type=\? AND ts>\?/],
      [{ eventOutcomeIndicator: '4' }, /SEARCH a USING INDEX audit_outcome \(outcome=\?/],
      [{ auditSourceID: 'lab', eventActionCode: 'E' }, /SEARCH a USING INDEX audit_source \(source=\?/],
      [{ userID: 'alice' }, /SEARCH t USING PRIMARY KEY \(kind=\? AND value=\?[\s\S]*SEARCH a USING INDEX sqlite_autoindex_audits_1 \(id=\?/],
      [{ userID: 'alice', codes: [{ field: 'eventID', code: '110114' }], networkAccessPointID: '10.0.0.1' }, /SEARCH t USING PRIMARY KEY \(kind=\? AND value=\?[\s\S]*SEARCH a USING INDEX sqlite_autoindex_audits_1 \(id=\?[\s\S]*SEARCH x (EXISTS )?USING (PRIMARY KEY|COVERING INDEX audit_terms_time) \((kind|ts)=\? AND (value|id)=\? AND (ts|kind)=\? AND (id|value)=\?/],
      [{ participantObjectID: [{ prefix: 'p12^^^' }] }, /SEARCH audit_terms USING PRIMARY KEY \(kind=\? AND value>\? AND value<\?/],
    ];
    for (const [filter, expected] of cases) {
      for (const keyset of [false, true]) {
        const steps = plan(file, filter, keyset);
        expect(steps, JSON.stringify(filter)).toMatch(expected);
        expect(steps, JSON.stringify(filter)).not.toMatch(/SCAN a$|SCAN a\n|SCAN audit_terms/m);
        // The prefix's few candidates are sorted; every other driver reads in order.
        if (filter.participantObjectID === undefined) expect(steps, JSON.stringify(filter)).not.toMatch(/TEMP B-TREE/);
      }
    }
    // The keyset continues inside the driving index rather than filtering after it.
    expect(plan(file, {}, true)).toMatch(/SEARCH a USING INDEX audit_time \(\(ts,id\)<\(\?,\?\)\)/);
    expect(plan(file, { userID: 'alice' }, true)).toMatch(/SEARCH t USING PRIMARY KEY \(kind=\? AND value=\? AND \(ts,id\)<\(\?,\?\)\)/);
  });

  it('finds what retention deletes through indexes: the oldest audits by time, their terms by key', async () => {
    const { file } = await open();
    const db = new Database(file, { readonly: true });
    try {
      const steps = (sql: string, ...params: unknown[]): string => db.prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`).all(...params).map((r) => r.detail).join('\n');
      expect(steps('SELECT id, ts, doc FROM audits WHERE ts < ? ORDER BY ts, id LIMIT ?', 1, 1)).toMatch(/SEARCH audits USING INDEX audit_time/);
      expect(steps('DELETE FROM audit_terms WHERE kind = ? AND value = ? AND ts = ? AND id = ?', 1, 'x', 1, 'x')).toMatch(/SEARCH audit_terms USING PRIMARY KEY \(kind=\? AND value=\? AND ts=\? AND id=\?\)/);
      // Terms are written with every audit; an index by time would cost a b-tree write per term for retention alone.
      expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'audit_terms'").all()).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('leaves no term behind when retention deletes audits', async () => {
    const { log, file } = await open();
    for (let i = 0; i < 10; i++) await log.add(audit(i, { participantObjectIdentification: [{ participantObjectID: `patient-${i}` }] }));
    expect(await log.dropBefore(new Date(audit(6).eventIdentification.eventDateTime), 100)).toBe(6);
    const db = new Database(file, { readonly: true });
    try {
      const left = db.prepare<[], { value: string }>("SELECT value FROM audit_terms WHERE value LIKE 'patient-%' ORDER BY value").all().map((r) => r.value);
      expect(left).toEqual(['patient-6', 'patient-7', 'patient-8', 'patient-9']);
    } finally {
      db.close();
    }
  });

  it('checks what SQL cannot window by window, with the same answers as one window', async () => {
    const small = await open({ scanWindowRows: 3 });
    const large = await open();
    for (let i = 0; i < 60; i++) {
      const record = audit(Math.floor(i / 3), { participantObjectIdentification: [{ participantObjectID: `${i % 4}-patient`, participantObjectIDTypeCode: { code: '2', displayName: i % 2 === 0 ? 'Even' : 'Odd' } }] });
      await small.log.add(record);
      await large.log.add(record);
    }
    const filter: AuditFilter = { participantObjectID: [{ prefix: '', pattern: '^[13]-' }], codes: [{ field: 'participantObjectIDTypeCode', displayName: 'Odd' }] };
    const all = (await large.log.page(filter, { skip: 0, limit: 100 })).map((a) => a.eventIdentification.eventDateTime.getTime());
    expect(all).toHaveLength(30);
    const windowed = (await small.log.page(filter, { skip: 0, limit: 100 })).map((a) => a.eventIdentification.eventDateTime.getTime());
    expect(windowed).toEqual(all);
    expect((await small.log.page(filter, { skip: 4, limit: 7 })).map((a) => a.eventIdentification.eventDateTime.getTime())).toEqual(all.slice(4, 11));
  });

  it('creates its folder private to the service', async () => {
    const { dir } = await open();
    expect((await stat(join(dir, 'data'))).mode & 0o777).toBe(0o700);
  });

  it('refuses to open a file that is not a SQLite database, naming it, and leaves it untouched', async () => {
    const dir = await tempDir('junction-auditlog-');
    dirs.push(dir);
    const file = join(dir, 'audits.sqlite');
    const text = 'not a database\n'.repeat(500);
    await writeFile(file, text);
    const log = createSqliteAuditLog({ file, logger: silent });
    const failure = await log.open().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(StoreOpenError);
    expect((failure as StoreOpenError).file).toBe(file);
    expect((await stat(file)).size).toBe(text.length);
  });
});
