/**
 * An audit filter's plan (audit-plan.ts) as one PostgreSQL statement over the audit tables (audit-schema.ts), newest
 * first. The driver is the FROM clause and its order; the planner checks the other conditions on the driver's rows
 * (the event columns' indexes all end in time and id, so the time index or a column's index reads in order).
 */
import { TOP } from '../audit-plan.js';
import type { AuditPlan } from '../audit-plan.js';
import { TERM } from '../audit-rows.js';
import { Params } from './filter.js';

/** Where a keyset read continues: after (older than) this row. */
export interface AuditKey {
  ts: number;
  id: string;
}

/** The statement reading a plan's rows (id, ts, doc) newest first, after `after` when given, `limit` of them from `offset`. */
export function auditSelect(plan: AuditPlan, options: { after?: AuditKey | null; limit: number; offset?: number }): { text: string; values: unknown[] } {
  const p = new Params();
  const { driver } = plan;
  let from = 'audits a';
  let ts = 'a.ts';
  let id = 'a.id';
  const where: string[] = [];
  if (driver.by === 'term') {
    from = 'audit_terms t JOIN audits a ON a.id = t.id';
    ts = 't.ts';
    id = 't.id';
    where.push(`t.kind = ${p.add(driver.kind)}`, `t.value = ${p.add(driver.value)}`);
  } else if (driver.by === 'prefix') {
    // The candidates of a prefix are few enough to sort; the time bounds cut them inside the term index.
    const inner = [`kind = ${p.add(TERM.participantObjectID)}`, `value >= ${p.add(driver.prefix)}`, `value < ${p.add(driver.prefix + TOP)}`, ...timeRange('ts', plan, p)];
    from = `(SELECT DISTINCT ts, id FROM audit_terms WHERE ${inner.join(' AND ')}) t JOIN audits a ON a.id = t.id`;
    ts = 't.ts';
    id = 't.id';
  }
  where.push(...timeRange(ts, plan, p));
  for (const { column, value } of plan.columns) where.push(`a.${column} = ${p.add(value)}`);
  for (const term of plan.terms) {
    where.push(`EXISTS (SELECT 1 FROM audit_terms x WHERE x.kind = ${p.add(term.kind)} AND x.value = ${p.add(term.value)} AND x.ts = a.ts AND x.id = a.id)`);
  }
  if (options.after !== undefined && options.after !== null) where.push(`(${ts}, ${id}) < (${p.add(options.after.ts)}, ${p.add(options.after.id)})`);
  const condition = where.length === 0 ? 'true' : where.join(' AND ');
  const offset = options.offset === undefined || options.offset === 0 ? '' : ` OFFSET ${p.add(options.offset)}`;
  const text = `SELECT a.id, a.ts, a.doc FROM ${from} WHERE ${condition} ORDER BY ${ts} DESC, ${id} DESC LIMIT ${p.add(options.limit)}${offset}`;
  return { text, values: p.values };
}

function timeRange(column: string, plan: AuditPlan, p: Params): string[] {
  const bounds: string[] = [];
  if (plan.from !== null) bounds.push(`${column} >= ${p.add(plan.from)}`);
  if (plan.to !== null) bounds.push(`${column} <= ${p.add(plan.to)}`);
  return bounds;
}
