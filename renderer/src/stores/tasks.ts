/**
 * Re-run tasks: one page of the list (the API gives no total, so a full page means "there may be more"), the task
 * open on the detail page with one page of its transactions, and `task.progress` events applied to both.
 */
import { create } from 'zustand';
import type { TaskDetail, TaskOutcome, TaskStatus, TaskView } from '../../../service/contracts/tasks';
import { getTask, listTasks } from '../api/tasks';

export const TASK_PAGE_SIZE = 20;
export const TASK_ITEM_PAGE_SIZE = 50;

interface ProgressEvent {
  taskId: string;
  status: string;
  totalTransactions: number;
  remaining: number;
  succeeded?: number;
  failed?: number;
  outcome?: TaskOutcome;
}

interface TasksState {
  tasks: TaskView[];
  page: number;
  status: TaskStatus | null;
  hasMore: boolean;
  loading: boolean;
  error: unknown;
  detail: TaskDetail | null;
  detailPage: number;
  detailError: unknown;
  load: (page?: number, status?: TaskStatus | null) => Promise<void>;
  open: (id: string, page?: number) => Promise<void>;
  /** Counts progress events; `updated` compares it with its value when the change was sent. */
  eventSeq: number;
  /** The `eventSeq` of the last progress event per task. */
  lastEvent: Record<string, number>;
  /**
   * Puts a task as answered by a change into the list and the detail. `sentSeq` is `eventSeq` when the change was
   * sent: a progress event that came since may be newer than the answer (the runner can move a resumed task on
   * before the answer arrives), and every change is also published as an event, so then the events are kept.
   */
  updated: (task: TaskView, sentSeq?: number) => void;
  removed: (id: string) => void;
  progress: (event: ProgressEvent) => void;
}

function applyProgress<T extends TaskView>(task: T, event: ProgressEvent): T {
  if (task._id !== event.taskId) return task;
  return {
    ...task,
    status: event.status as TaskStatus,
    totalTransactions: event.totalTransactions,
    remainingTransactions: event.remaining,
    ...(event.succeeded === undefined ? {} : { succeededTransactions: event.succeeded }),
    ...(event.failed === undefined ? {} : { failedTransactions: event.failed }),
    ...(event.outcome === undefined ? {} : { outcome: event.outcome }),
  };
}

export const useTasks = create<TasksState>()((set, get) => ({
  tasks: [],
  page: 0,
  status: null,
  hasMore: false,
  loading: false,
  error: null,
  detail: null,
  detailPage: 0,
  detailError: null,
  eventSeq: 0,
  lastEvent: {},
  async load(page = get().page, status = get().status) {
    set({ loading: true, error: null, page, status });
    try {
      const rows = await listTasks({ page, limit: TASK_PAGE_SIZE, status });
      // The API pages by limit × page, so a one-item page at index (page + 1) × size is the next page's first task.
      const next = rows.length === TASK_PAGE_SIZE ? await listTasks({ page: (page + 1) * TASK_PAGE_SIZE, limit: 1, status }) : [];
      if (get().page !== page || get().status !== status) return;
      set({ tasks: rows, hasMore: next.length > 0, loading: false });
    } catch (error) {
      set({ error, loading: false });
    }
  },
  async open(id, page = 0) {
    if (get().detail?._id !== id) set({ detail: null });
    set({ detailError: null, detailPage: page });
    try {
      const detail = await getTask(id, { page, limit: TASK_ITEM_PAGE_SIZE });
      if (get().detailPage === page) set({ detail });
    } catch (detailError) {
      set({ detailError });
    }
  },
  updated(task, sentSeq) {
    set((s) => {
      const stale = sentSeq !== undefined && (s.lastEvent[task._id] ?? 0) > sentSeq;
      const merge = <T extends TaskView>(t: T): T =>
        stale
          ? {
              ...t,
              ...task,
              status: t.status,
              remainingTransactions: t.remainingTransactions,
              totalTransactions: t.totalTransactions,
              succeededTransactions: t.succeededTransactions,
              failedTransactions: t.failedTransactions,
              outcome: t.outcome,
            }
          : { ...t, ...task };
      return {
        tasks: s.tasks.map((t) => (t._id === task._id ? merge(t) : t)),
        detail: s.detail?._id === task._id ? merge(s.detail) : s.detail,
      };
    });
  },
  removed(id) {
    set((s) => ({ tasks: s.tasks.filter((t) => t._id !== id), detail: s.detail?._id === id ? null : s.detail }));
  },
  progress(event) {
    set((s) => ({
      eventSeq: s.eventSeq + 1,
      lastEvent: { ...s.lastEvent, [event.taskId]: s.eventSeq + 1 },
      tasks: s.tasks.map((t) => applyProgress(t, event)),
      detail: s.detail === null ? null : applyProgress(s.detail, event),
    }));
  },
}));
