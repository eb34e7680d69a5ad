/**
 * Re-run tasks (COMPAT.md): `GET/POST /tasks`, `GET/PUT/DELETE /tasks/:id` and `POST /bulkrerun`. Re-running one
 * transaction is a task with one id, as in OpenHIM. Creating a task answers 201 with the task and `warnings`
 * (for instance, transactions that were already re-run). Users see and change the tasks they created; admins all.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { invalidInput } from '../../refusals.js';
import { parseTaskItemFilters, parseTaskListFilters } from '../../domain/tasks.js';
import { parseFilters, translateFilters } from '../../domain/transaction-access.js';
import type { TaskQueue } from '../../tasks/queue.js';
import { currentUser } from '../auth/hook.js';
import { itemView, taskView } from '../views/tasks.js';
import { MessageAnswerSchema, NoQuery } from '../schemas/common.js';
import { BulkRerunBody, CreatedTaskSchema, TaskCreateBody, TaskDetailSchema, TaskListAnswer, TaskListQuery, TaskParams, TaskUpdateBody, TaskViewSchema } from '../schemas/tasks.js';

export interface TaskRoutesDeps {
  tasks: TaskQueue;
}

const DEFAULT_LIMIT = 20;
// A task's own page of transactions defaults larger: the console shows them all for small tasks.
const DEFAULT_ITEM_LIMIT = 100;

function page(query: TaskListQuery, defaultLimit: number): { limit: number; skip: number } {
  const limit = query.filterLimit ?? defaultLimit;
  return { limit, skip: limit * (query.filterPage ?? 0) };
}

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

    app.post('/bulkrerun', { schema: { querystring: NoQuery, body: BulkRerunBody, response: { 201: CreatedTaskSchema } } }, async (request, reply) => {
      const user = currentUser(request);
      const { filters, batchSize = 1, pauseQueue = false } = request.body;
      const parsed = typeof filters === 'string' ? parseFilters(filters) : translateFilters(filters, 'body.filters');
      // parseFilters names problems as the list query's; here they are in the body.
      if (!parsed.ok) throw invalidInput(parsed.problems.map((p) => ({ ...p, path: p.path.replace(/^querystring\.filters/, 'body.filters') })));
      const created = await tasks.createFromFilter(user, parsed.filter, { batchSize, paused: pauseQueue });
      request.log.info({ task: created.task._id, by: user.email, transactions: created.task.totalTransactions }, 'bulk re-run task created');
      return reply.code(201).send({ ...taskView(created.task), warnings: created.warnings });
    });

    app.get('/tasks/:id', { schema: { params: TaskParams, querystring: TaskListQuery, response: { 200: TaskDetailSchema } } }, async (request) => {
      const task = await tasks.get(currentUser(request), request.params.id);
      const parsed = parseTaskItemFilters(request.query.filters);
      if (!parsed.ok) throw invalidInput(parsed.problems);
      const items = await tasks.transactions(task._id, parsed.filter, page(request.query, DEFAULT_ITEM_LIMIT));
      return { ...taskView(task), transactions: items.map(itemView) };
    });

    app.put('/tasks/:id', { schema: { params: TaskParams, querystring: NoQuery, body: TaskUpdateBody, response: { 200: TaskViewSchema } } }, async (request) => {
      const user = currentUser(request);
      const updated = await tasks.change(user, request.params.id, request.body);
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
