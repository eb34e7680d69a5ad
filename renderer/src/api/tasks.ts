/** Typed calls of the re-run task routes. */
import type { TaskChange, TaskDetail, TaskStatus, TaskView } from '../../../service/contracts/tasks';
import { api, seg } from './client';

export interface TaskListRequest {
  page: number;
  limit: number;
  status?: TaskStatus | null;
}

/** One page of tasks, newest first (the API gives no total: a full page means there may be more). */
export function listTasks(request: TaskListRequest, signal?: AbortSignal): Promise<TaskView[]> {
  const filters = request.status === undefined || request.status === null ? undefined : JSON.stringify({ status: request.status });
  return api.get<TaskView[]>('/tasks', { filterPage: request.page, filterLimit: request.limit, filters }, signal);
}

/** A task with one page of its transactions, in re-run order. */
export function getTask(id: string, page: { page: number; limit: number }, signal?: AbortSignal): Promise<TaskDetail> {
  return api.get<TaskDetail>(`/tasks/${seg(id)}`, { filterPage: page.page, filterLimit: page.limit }, signal);
}

/** Pauses (Paused), resumes (Queued) or cancels (Cancelled) a task. */
export function changeTask(id: string, change: TaskChange): Promise<TaskView> {
  return api.put<TaskView>(`/tasks/${seg(id)}`, change);
}

export function deleteTask(id: string): Promise<{ message: string }> {
  return api.delete<{ message: string }>(`/tasks/${seg(id)}`);
}
