/** Response schema of `GET /backup/status`: the contract's `BackupStatus` (test/types/ keeps them equal). */
import { Type } from 'typebox';

const BackupRunSchema = Type.Object({
  trigger: Type.Enum(['download', 'schedule']),
  startedAt: Type.String(),
  finishedAt: Type.Optional(Type.String()),
  outcome: Type.Optional(Type.Enum(['succeeded', 'failed'])),
  error: Type.Optional(Type.String()),
  file: Type.String(),
  entriesDone: Type.Integer(),
  entriesTotal: Type.Integer(),
  bytesDone: Type.Integer(),
  bytesTotal: Type.Integer(),
});

export const BackupFileSchema = Type.Object({
  name: Type.String(),
  size: Type.Integer(),
  created: Type.String(),
});

export const BackupStatusSchema = Type.Object({
  state: Type.Enum(['idle', 'preparing', 'writing']),
  current: Type.Optional(BackupRunSchema),
  last: Type.Optional(BackupRunSchema),
  schedule: Type.Object({
    enabled: Type.Boolean(),
    folder: Type.String(),
    schedule: Type.String(),
    keep: Type.Integer(),
  }),
  recent: Type.Array(BackupFileSchema),
});
