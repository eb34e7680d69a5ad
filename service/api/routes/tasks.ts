/**
 * Re-run tasks (COMPAT.md): `GET/POST /tasks`, `GET/PUT/DELETE /tasks/:id` and `POST /bulkrerun`. Re-running one
 * transaction is a task with one id, as in OpenHIM. `POST /tasks` answers 201 with the task and `warnings` (for
 * instance, transactions that were already re-run); `POST /bulkrerun` answers 200 with OpenHIM's `{success, message}`
 * besides them; `latestAttemptOnly` re-runs only the latest attempt of each message, and `POST /bulkrerun/preview`
 * answers what a bulk re-run would do before it starts. A task sent back whole to `PUT` is accepted. Users see and
 * change the tasks they created; admins all.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { invalidInput } from '../../refusals.js';
import { parseTaskItemFilters, parseTaskListFilters } from '../../domain/transactions/tasks.js';
import { parseFilters, translateFilters } from '../../domain/transactions/transaction-access.js';
import type { TransactionFilter } from '../../domain/transactions/transaction-access.js';
import type { TaskQueue } from '../../tasks/queue.js';
import { refuseSearchWhenOff } from '../transaction-search.js';
import type { TransactionSearch } from '../transaction-search.js';
import { pageWindow } from '../../domain/util/paging.js';
import type { PageWindow } from '../../domain/util/paging.js';
import { currentUser } from '../auth/hook.js';
import { itemView, taskView } from '../views/tasks.js';
import { MessageAnswerSchema, NoQuery } from '../schemas/common.js';
import { BulkRerunAnswerSchema, BulkRerunBody, BulkRerunPreviewBody, BulkRerunPreviewSchema, CreatedTaskSchema, TaskCreateBody, TaskDetailSchema, TaskListAnswer, TaskListQuery, TaskParams, TaskUpdateBody, TaskViewSchema } from '../schemas/tasks.js';

export interface TaskRoutesDeps {
  tasks: TaskQueue;
  /** The clinical search (issue 37): a bulk re-run by key or text is refused while it is off, as the list's search is. */
  search: TransactionSearch;
}

const DEFAULT_LIMIT = 20;
// A task's own page of transactions defaults larger: the console shows them all for small tasks.
const DEFAULT_ITEM_LIMIT = 100;

/** The page asked for (`filterLimit=0`: all, as in OpenHIM); 400 when `filterPage × filterLimit` is beyond exact integers. */
function page(query: TaskListQuery, defaultLimit: number): PageWindow {
  const window = pageWindow(query.filterLimit ?? defaultLimit, query.filterPage ?? 0);
  if (window === null) throw invalidInput([{ path: 'querystring.filterPage', message: 'must make filterPage × filterLimit an exact integer' }]);
  return window;
}

/** The filters of a bulk re-run, as an object or its JSON text; problems are named in the body. */
function bulkFilters(filters: BulkRerunBody['filters'], search: TransactionSearch): TransactionFilter {
  const parsed = typeof filters === 'string' ? parseFilters(filters) : translateFilters(filters, 'body.filters');
  // parseFilters names problems as the list query's; here they are in the body.
  if (!parsed.ok) throw invalidInput(parsed.problems.map((p) => ({ ...p, path: p.path.replace(/^querystring\.filters/, 'body.filters') })));
  refuseSearchWhenOff(parsed.filter, search);
  return parsed.filter;
}

/** What OpenHIM answers a bulk re-run with. */
const BULK_RERUN_MESSAGE = 'Tasks created for bulk rerun of transactions';

export function taskRoutes(deps: TaskRoutesDeps): FastifyPluginAsyncTypebox {
  const { tasks } = deps;
  return async (app) => {
    app.get('/tasks', { schema: { querystring: TaskListQuery, response: { 200: TaskListAnswer } } }, async (request) => {
      const parsed = parseTaskListFilters(request.query.filters);
      if (!parsed.ok) throw invalidInput(parsed.problems);
      const listed = await tasks.list(currentUser(request), parsed.filter, page(request.query, DEFAULT_LIMIT));
      return listed.map(taskView);
    });

    app.post('/tasks', { schema: { querystring: NoQuery, body: TaskCreateBody, response: { 201: CreatedTaskSchema } } }, async (request, reply) => {
      const user = currentUser(request);
      const { tids, batchSize = 1, paused = false } = request.body;
      const created = await tasks.createFromIds(user, tids, { batchSize, paused });
      request.log.info({ task: created.task._id, by: user.email, transactions: created.task.totalTransactions }, 're-run task created');
      return reply.code(201).send({ ...taskView(created.task), warnings: created.warnings });
    });

    app.post('/bulkrerun', { schema: { querystring: NoQuery, body: BulkRerunBody, response: { 200: BulkRerunAnswerSchema } } }, async (request) => {
      const user = currentUser(request);
      const { filters, batchSize = 1, pauseQueue = false, latestAttemptOnly = false } = request.body;
      const created = await tasks.createFromFilter(user, bulkFilters(filters, deps.search), { batchSize, paused: pauseQueue, latestAttemptOnly });
      request.log.info({ task: created.task._id, by: user.email, transactions: created.task.totalTransactions, latestAttemptOnly }, 'bulk re-run task created');
      // 200 with OpenHIM's {success, message}, and the task Junction made (one, where OpenHIM makes one per 1,000).
      return { success: true as const, message: BULK_RERUN_MESSAGE, ...taskView(created.task), warnings: created.warnings };
    });

    // A POST, as the bulk re-run itself: the filters are the same body, often longer than a query string takes.
    app.post('/bulkrerun/preview', { schema: { querystring: NoQuery, body: BulkRerunPreviewBody, response: { 200: BulkRerunPreviewSchema } } }, async (request) => {
      return await tasks.preview(currentUser(request), bulkFilters(request.body.filters, deps.search));
    });

    app.get('/tasks/:id', { schema: { params: TaskParams, querystring: TaskListQuery, response: { 200: TaskDetailSchema } } }, async (request) => {
      const task = await tasks.get(currentUser(request), request.params.id);
      const parsed = parseTaskItemFilters(request.query.filters);
      if (!parsed.ok) throw invalidInput(parsed.problems);
      const { items, total } = await tasks.transactions(task._id, parsed.filter, page(request.query, DEFAULT_ITEM_LIMIT));
      return { ...taskView(task), transactions: items.map(itemView), totalFilteredTransactions: total };
    });

    app.put('/tasks/:id', { schema: { params: TaskParams, querystring: NoQuery, body: TaskUpdateBody, response: { 200: TaskViewSchema } } }, async (request) => {
      const user = currentUser(request);
      // Only the status and batch size change; the rest of a task sent back whole is ignored, and null is "not set".
      const { status, batchSize } = request.body;
      const updated = await tasks.change(user, request.params.id, { ...(status === null || status === undefined ? {} : { status }), ...(batchSize === null || batchSize === undefined ? {} : { batchSize }) });
      request.log.info({ task: updated._id, by: user.email, status: updated.status, batchSize: updated.batchSize }, 're-run task changed');
      return taskView(updated);
    });

    app.delete('/tasks/:id', { schema: { params: TaskParams, querystring: NoQuery, response: { 200: MessageAnswerSchema } } }, async (request) => {
      const user = currentUser(request);
      await tasks.remove(user, request.params.id);
      request.log.info({ task: request.params.id, by: user.email }, 're-run task deleted');
      return { message: `Task ${request.params.id} deleted` };
    });
  };
}
