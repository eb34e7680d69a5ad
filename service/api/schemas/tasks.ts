/**
 * Request and response schemas of the task routes (COMPAT.md "tasks" and `POST /bulkrerun`, OpenHIM field names).
 * The answers are the contracts' (contracts/tasks.ts; test/types/ keeps them equal).
 */
import { Type } from 'typebox';
import type { Static } from 'typebox';
import { TASK_ITEM_STATUSES, TASK_OUTCOMES, TASK_STATUSES } from '../../domain/transactions/tasks.js';
import { TRANSACTION_STATUSES } from '../../domain/transactions/transaction-status.js';
import { MAX_BATCH_SIZE, MAX_TASK_TRANSACTIONS } from '../../tasks/queue.js';
import { FreeFormObject, OrNull, Paging } from './common.js';

const HexId = Type.String({ pattern: '^[0-9a-f]{24}$', description: '24 hexadecimal characters' });
const BatchSize = Type.Integer({ minimum: 1, maximum: MAX_BATCH_SIZE, description: 'how many of the transactions are re-run at the same time' });

export const TaskParams = Type.Object({ id: HexId }, { additionalProperties: false });

export const TaskCreateBody = Type.Object(
  {
    tids: Type.Array(HexId, { minItems: 1, maxItems: MAX_TASK_TRANSACTIONS, description: 'the transactions to re-run, in order' }),
    batchSize: Type.Optional(BatchSize),
    paused: Type.Optional(Type.Boolean({ description: 'create the task Paused; it waits until resumed' })),
  },
  { additionalProperties: false },
);
export type TaskCreateBody = Static<typeof TaskCreateBody>;

// Filter keys are dotted paths and operators ($gte), read but never stored, so only depth and size are bounded here.
const RerunFilters = Type.Union([FreeFormObject({ limits: { storableKeys: false } }), Type.String({ maxLength: 10_000 })], {
  description: 'the transaction list filters, as an object or as its JSON text',
});

export const BulkRerunBody = Type.Object(
  {
    filters: RerunFilters,
    batchSize: Type.Optional(BatchSize),
    pauseQueue: Type.Optional(Type.Boolean({ description: 'create the task Paused' })),
    latestAttemptOnly: Type.Optional(
      Type.Boolean({
        description: 'only the latest attempt of each message (an original and the re-runs linked to it) is re-run; off (as OpenHIM) when not given',
      }),
    ),
  },
  { additionalProperties: false },
);
export type BulkRerunBody = Static<typeof BulkRerunBody>;

/** `POST /bulkrerun/preview`: the filters a bulk re-run would be given. */
export const BulkRerunPreviewBody = Type.Object({ filters: RerunFilters }, { additionalProperties: false });
export type BulkRerunPreviewBody = Static<typeof BulkRerunPreviewBody>;

const Page = {
  ...Paging,
  filters: Type.Optional(Type.String({ maxLength: 10_000, description: 'a JSON object of filters' })),
};

export const TaskListQuery = Type.Object(Page, { additionalProperties: false });
export type TaskListQuery = Static<typeof TaskListQuery>;

const TaskItem = Type.Object({
  tid: Type.String({ maxLength: 64 }),
  tstatus: Type.Enum([...TASK_ITEM_STATUSES]),
  rerunID: Type.Optional(Type.String({ maxLength: 64 })),
  rerunStatus: Type.Optional(Type.Enum([...TRANSACTION_STATUSES])),
  error: Type.Optional(Type.String({ maxLength: 10_000 })),
});
const Count = Type.Integer({ minimum: 0 });

/**
 * `PUT /tasks/:id`: the status and batch size change; `_id` and the read-only fields are accepted so that a task sent
 * back whole as fetched (OpenHIM's console) is not refused, and ignored. Null is "not set".
 */
export const TaskUpdateBody = Type.Object(
  {
    status: Type.Optional(OrNull(Type.Enum([...TASK_STATUSES], { description: 'Paused, Queued (to resume) or Cancelled; the current status is no change' }))),
    batchSize: Type.Optional(OrNull(BatchSize)),
    _id: Type.Optional(OrNull(Type.String({ maxLength: 64, description: 'ignored: the task is the one in the path' }))),
    totalTransactions: Type.Optional(OrNull(Count)),
    remainingTransactions: Type.Optional(OrNull(Count)),
    user: Type.Optional(OrNull(Type.String({ maxLength: 254 }))),
    created: Type.Optional(OrNull(Type.String({ maxLength: 64 }))),
    completedDate: Type.Optional(OrNull(Type.String({ maxLength: 64 }))),
    transactions: Type.Optional(OrNull(Type.Array(TaskItem, { maxItems: MAX_TASK_TRANSACTIONS }))),
    totalFilteredTransactions: Type.Optional(OrNull(Count)),
    succeededTransactions: Type.Optional(OrNull(Count)),
    failedTransactions: Type.Optional(OrNull(Count)),
    outcome: Type.Optional(OrNull(Type.Enum([...TASK_OUTCOMES]))),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type TaskUpdateBody = Static<typeof TaskUpdateBody>;

const taskFields = {
  _id: Type.String(),
  status: Type.Enum([...TASK_STATUSES]),
  batchSize: Type.Integer(),
  totalTransactions: Type.Integer(),
  remainingTransactions: Type.Integer({ description: 'transactions not re-run yet' }),
  user: Type.String({ description: 'email of the user who created the task' }),
  created: Type.String(),
  completedDate: Type.Optional(Type.String()),
  succeededTransactions: Type.Integer({ description: 're-run, and the new transaction is Successful' }),
  failedTransactions: Type.Integer({ description: 'not re-run (refused when its turn came), or re-run and the new transaction Failed' }),
  outcome: Type.Enum([...TASK_OUTCOMES], { description: 'the finished transactions together: pending (none yet), succeeded (all), failed (all) or mixed' }),
};

/** A task as the list, `PUT /tasks/:id` and the detail answer it. */
export const TaskViewSchema = Type.Object(taskFields);

export const TaskTransactionViewSchema = Type.Object({
  tid: Type.String({ description: 'the transaction re-run' }),
  tstatus: Type.Enum([...TASK_ITEM_STATUSES]),
  rerunID: Type.Optional(Type.String({ description: 'the new transaction made by the re-run' })),
  rerunStatus: Type.Optional(Type.Enum([...TRANSACTION_STATUSES])),
  error: Type.Optional(Type.String({ description: 'why it was not re-run' })),
});

/** `GET /tasks/:id`: the task with one page of its transactions. */
export const TaskDetailSchema = Type.Object({
  ...taskFields,
  transactions: Type.Array(TaskTransactionViewSchema),
  totalFilteredTransactions: Type.Integer({ description: 'how many of its transactions match the filters' }),
});

/** `POST /tasks` (201): the new task and what the user should know about it. */
export const CreatedTaskSchema = Type.Object({ ...taskFields, warnings: Type.Array(Type.String()) });

/** `POST /bulkrerun` (200): OpenHIM's `{success, message}` with the new task and its warnings. */
export const BulkRerunAnswerSchema = Type.Object({ success: Type.Literal(true), message: Type.String(), ...taskFields, warnings: Type.Array(Type.String()) });

/** `POST /bulkrerun/preview` (200): what a bulk re-run of the filters would do; nothing is created or sent. */
export const BulkRerunPreviewSchema = Type.Object({
  matching: Type.Integer({ description: 'transactions matching the filters, among the channels the user may re-run' }),
  alreadyRerun: Type.Integer({ description: 'of those, re-run before' }),
  reruns: Type.Integer({ description: 'of those, re-runs (or automatic retries) themselves' }),
  notRerunnable: Type.Integer({ description: 'of those, ones that cannot be re-run (see warnings)' }),
  rerunnable: Type.Integer({ description: 'what a bulk re-run without latestAttemptOnly re-runs' }),
  latestAttempts: Type.Integer({ description: 'what a bulk re-run with latestAttemptOnly re-runs' }),
  warnings: Type.Array(Type.String()),
});

/** `GET /tasks`: one page of tasks, newest first. */
export const TaskListAnswer = Type.Array(TaskViewSchema);
