/**
 * The PostgreSQL audit log when a new audit's random id is already taken (64 random bits: never seen in practice,
 * so the id maker is replaced here): the audit takes another id, and after three clashes it is refused.
 */
import { afterAll, afterEach, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import type { AuditLog } from '../../service/storage/audits.js';
import type * as ObjectIds from '../../service/storage/object-ids.js';
import { UniqueConstraintError } from '../../service/storage/store.js';
import { createPostgresAuditLog } from '../../service/storage/postgres/audit-log.js';
import { PostgresDatabase } from '../../service/storage/postgres/index.js';
import { createTestDatabase, newSchemaName, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { audit } from './audit-log-contract.js';

const ids = vi.hoisted(() => ({ next: [] as string[] }));
vi.mock('../../service/storage/object-ids.js', async (importOriginal) => {
  const actual = await importOriginal<typeof ObjectIds>();
  return { ...actual, newObjectId: (at?: Date) => ids.next.shift() ?? actual.newObjectId(at) };
});

const TAKEN = '0123456789abcdef01234567';
const silent = pino({ level: 'silent' });
const database: Promise<TestDatabase> = createTestDatabase();
let log: AuditLog | undefined;

afterEach(async () => {
  await log?.close();
});
afterAll(async () => {
  await (await database).drop();
});

async function openLog(): Promise<AuditLog> {
  log = createPostgresAuditLog({ database: new PostgresDatabase({ settings: settingsFor((await database).url), logger: silent, schema: newSchemaName() }) });
  await log.open();
  expect(await log.restore({ ...audit(1), _id: TAKEN })).toBe(true);
  return log;
}

it('gives an added audit another id when its first is taken, storing it once', async () => {
  const opened = await openLog();
  ids.next = [TAKEN, TAKEN, 'fedcba9876543210fedcba98'];
  const added = await opened.add(audit(2, { activeParticipant: [{ userID: 'clashed' }] }));
  expect(added._id).toBe('fedcba9876543210fedcba98');
  expect(await opened.get(added._id)).toEqual(added);
  expect((await opened.page({ userID: 'clashed' }, { skip: 0, limit: 10 })).map((a) => a._id)).toEqual([added._id]);
  expect((await opened.get(TAKEN))?.activeParticipant).toEqual(audit(1).activeParticipant);
});

it('refuses an added audit whose ids clash three times, storing nothing of it', async () => {
  const opened = await openLog();
  ids.next = [TAKEN, TAKEN, TAKEN];
  await expect(opened.add(audit(3, { activeParticipant: [{ userID: 'never' }] }))).rejects.toBeInstanceOf(UniqueConstraintError);
  expect(await opened.page({}, { skip: 0, limit: 10 })).toHaveLength(1);
  expect(await opened.page({ userID: 'never' }, { skip: 0, limit: 10 })).toEqual([]);
});
