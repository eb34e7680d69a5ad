/** Re-run tasks, newest first: status and outcome, progress, who started them, and pause/resume/cancel/delete. */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Anchor, Button, Group, Select, Stack, Text } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import type { ColumnDef } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { TaskStatus, TaskView } from '../../../../service/contracts/tasks';
import { live } from '../../api/live';
import { ErrorAlert } from '../../components/ErrorAlert';
import { DataTable } from '../../components/DataTable';
import { PageHeader } from '../../components/PageHeader';
import { isAdmin, useSession } from '../../stores/session';
import { useTasks } from '../../stores/tasks';
import { TaskActions, TaskProgress, TaskStatusBadge } from './TaskParts';

const column = createColumnHelper<TaskView>();
const STATUSES: TaskStatus[] = ['Queued', 'Processing', 'Paused', 'Cancelled', 'Completed'];
// The live feed sends task progress to admins only; other users' pages ask again this often while a task runs.
const POLL_MS = 5000;

export function TasksPage() {
  const { tasks, page, status, hasMore, loading, error, load, updated, removed, progress } = useTasks();
  const [actionError, setActionError] = useState<string | null>(null);
  const refetch = useCallback(() => void load(), [load]);
  useEffect(refetch, [refetch]);

  // A progress event for a task not on this page is a new task: show it when looking at the newest ones.
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => {
    const off = live.on('task.progress', (event) => {
      const state = useTasks.getState();
      if (state.tasks.some((t) => t._id === event.taskId)) {
        progress(event);
        if (state.status !== null && state.status !== event.status) refetch();
      } else if (state.page === 0 && pending.current === null) {
        pending.current = setTimeout(() => {
          pending.current = null;
          refetch();
        }, 300);
      }
    });
    const offReconnect = live.onReconnect(refetch);
    return () => {
      off();
      offReconnect();
      if (pending.current !== null) clearTimeout(pending.current);
      pending.current = null;
    };
  }, [progress, refetch]);

  const admin = isAdmin(useSession((s) => s.user));
  const running = tasks.some((t) => t.status === 'Queued' || t.status === 'Processing');
  useEffect(() => {
    if (admin || !running) return;
    const timer = setInterval(refetch, POLL_MS);
    return () => clearInterval(timer);
  }, [admin, running, refetch]);

  const columns = useMemo(
    () =>
      [
        column.accessor('created', {
          header: 'Created',
          cell: (info) => (
            <Anchor component={Link} to={`/tasks/${info.row.original._id}`} aria-label={`Open the task created ${new Date(info.getValue()).toLocaleString()}`}>
              {new Date(info.getValue()).toLocaleString()}
            </Anchor>
          ),
        }),
        column.accessor('user', { header: 'Created by', cell: (info) => <Text size="sm" style={{ wordBreak: 'break-all' }}>{info.getValue()}</Text> }),
        column.accessor('status', { header: 'Status', cell: (info) => <TaskStatusBadge task={info.row.original} /> }),
        column.display({ id: 'progress', header: 'Progress', cell: ({ row }) => <TaskProgress task={row.original} /> }),
        column.accessor('batchSize', { header: 'At a time' }),
        column.display({
          id: 'actions',
          header: 'Actions',
          cell: ({ row }) => <TaskActions task={row.original} onChanged={updated} onDeleted={() => removed(row.original._id)} onError={setActionError} />,
        }),
      ] as ColumnDef<TaskView, unknown>[],
    [updated, removed],
  );

  return (
    <Stack>
      <PageHeader title="Tasks">
        <Button variant="default" onClick={refetch} loading={loading}>
          Refresh
        </Button>
      </PageHeader>
      <Text c="dimmed" size="sm">
        A task re-runs a list of transactions, a few at a time. Tasks are started from the transactions page.
      </Text>
      <Group align="flex-end">
        <Select
          label="Status"
          data={[{ value: '', label: 'Any status' }, ...STATUSES.map((s) => ({ value: s, label: s }))]}
          value={status ?? ''}
          onChange={(value) => void load(0, value === null || value === '' ? null : (value))}
          allowDeselect={false}
          w={200}
        />
      </Group>
      <ErrorAlert error={error} action="load the tasks" />
      {actionError === null ? null : <ErrorAlert error={new Error(actionError)} onClose={() => setActionError(null)} />}
      {!loading && error === null && tasks.length === 0 ? (
        <Text>{status === null ? 'No re-run tasks yet.' : `No ${status.toLowerCase()} tasks.`}</Text>
      ) : (
        <DataTable
          data={tasks}
          columns={columns}
          label="Re-run tasks"
          getRowId={(t) => t._id}
          sortable={false}
          striped
          busy={loading}
          minWidth={820}
          empty={loading ? 'Loading…' : ''}
        />
      )}
      <Group justify="space-between">
        <Button variant="default" disabled={page === 0 || loading} onClick={() => void load(page - 1)}>
          Newer tasks
        </Button>
        <Text size="sm" aria-live="polite">
          Page {page + 1}
        </Text>
        <Button variant="default" disabled={!hasMore || loading} onClick={() => void load(page + 1)}>
          Older tasks
        </Button>
      </Group>
    </Stack>
  );
}
