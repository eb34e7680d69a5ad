/** The durable, bounded audit outbox on SQLite: the outbox contract. */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { SqliteAuditOutbox } from '../../service/storage/sqlite/audit-outbox.js';
import { tempDir } from '../helpers/junction.js';
import { describeAuditOutboxContract } from '../storage/audit-outbox-contract.js';

describeAuditOutboxContract('SQLite', async (location) => {
  const dir = location ?? (await tempDir('junction-auditoutbox-'));
  return {
    outbox: new SqliteAuditOutbox({ file: join(dir, 'nested', 'audit-outbox.sqlite') }),
    location: dir,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});
