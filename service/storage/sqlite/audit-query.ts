/**
 * An audit filter's plan (audit-plan.ts) as SQL over the SQLite audit log's tables (audit-log.ts). The plan's driver
 * is the FROM clause; every other condition is checked on the driver's rows (`+column` keeps SQLite from choosing a
 * second index; terms are point lookups in their primary key).
 */
import { auditPlan, TOP } from '../audit-plan.js';
import type { AuditFilter } from '../audits.js';
import type { AuditRecord } from '../records.js';
import { TERM } from '../audit-rows.js';
import type { SqlValue } from './where.js';

export interface AuditQuery {
  /** The FROM clause: `audits a`, or a term source `t` joined to it. */
  from: string;
  fromParams: SqlValue[];
  /** The driving index's time and id columns, which the order and the keyset use. */
  ts: string;
  id: string;
  where: string[];
  params: SqlValue[];
  /** What SQL did not check; null when SQL checks everything. */
  check: ((record: AuditRecord) => boolean) | null;
}

/** The query of a filter; throws a StoreError naming a malformed condition. */
export function auditQuery(filter: AuditFilter): AuditQuery {
  const plan = auditPlan(filter);
  const { driver, from, to } = plan;
  const query: AuditQuery = { from: 'audits a', fromParams: [], ts: 'a.ts', id: 'a.id', where: [], params: [], check: plan.check };
  if (driver.by === 'term') {
    query.from = 'audit_terms t CROSS JOIN audits a ON a.id = t.id';
    query.ts = 't.ts';
    query.id = 't.id';
    query.where.push('t.kind = ?', 't.value = ?');
    query.params.push(driver.kind, driver.value);
  } else if (driver.by === 'prefix') {
    const range = timeRange('ts', from, to);
    query.from = `(SELECT DISTINCT ts, id FROM audit_terms WHERE kind = ? AND value >= ? AND value < ?${range.sql}) t CROSS JOIN audits a ON a.id = t.id`;
    query.fromParams.push(TERM.participantObjectID, driver.prefix, driver.prefix + TOP, ...range.params);
    query.ts = 't.ts';
    query.id = 't.id';
  }
  const range = timeRange(query.ts, from, to);
  if (range.sql !== '') {
    query.where.push(range.sql.slice(' AND '.length));
    query.params.push(...range.params);
  }
  plan.columns.forEach(({ column, value }, i) => {
    // The first drives when no term does; every other one is checked on the driver's rows.
    const drives = i === 0 && driver.by === 'audits';
    query.where.push(`${drives ? '' : '+'}a.${column} = ?`);
    query.params.push(value);
  });
  for (const term of plan.terms) {
    query.where.push('EXISTS (SELECT 1 FROM audit_terms x WHERE x.kind = ? AND x.value = ? AND x.ts = a.ts AND x.id = a.id)');
    query.params.push(term.kind, term.value);
  }
  return query;
}

/** The statement of a query, newest first, without its LIMIT; `extra` adds conditions (the keyset). */
export function auditSelect(query: AuditQuery, extra = ''): string {
  const where = query.where.length === 0 ? '1' : query.where.join(' AND ');
  return `SELECT a.id AS id, a.ts AS ts, a.doc AS doc FROM ${query.from} WHERE ${where}${extra} ORDER BY ${query.ts} DESC, ${query.id} DESC`;
}

/** `AND column >= ? AND column <= ?` for the bounds given (inclusive), or nothing. */
function timeRange(column: string, from: number | null, to: number | null): { sql: string; params: number[] } {
  let sql = '';
  const params: number[] = [];
  if (from !== null) {
    sql += ` AND ${column} >= ?`;
    params.push(from);
  }
  if (to !== null) {
    sql += ` AND ${column} <= ?`;
    params.push(to);
  }
  return { sql, params };
}
