/** One re-run task: its state, outcome and actions, and its transactions with how each re-run went. */
import { useCallback, useEffect, useRef, useState } from 'react';
import { Alert, Anchor, Badge, Code, Group, Loader, Pagination, Stack, Table, Text } from '@mantine/core';
import { Link, useNavigate, useParams } from 'react-router';
import type { TaskDetail, TaskItemStatus, TaskTransactionView } from '../../../../service/contracts/tasks';
import { live } from '../../api/live';
import { ErrorAlert } from '../../components/ErrorAlert';
import { FieldList } from '../../components/FieldList';
import type { FieldRow } from '../../components/FieldList';
import { PageHeader } from '../../components/PageHeader';
import { StatusBadge } from '../../components/StatusBadge';
import { isAdmin, useSession } from '../../stores/session';
import { TASK_ITEM_PAGE_SIZE, useTasks } from '../../stores/tasks';
import { TaskActions, TaskProgress, TaskStatusBadge } from './TaskParts';
import { otherCount, outcomeWarning } from './outcome';

const ITEM_COLOR: Record<TaskItemStatus, string> = { Queued: 'blue', Processing: 'cyan', Completed: 'teal', Failed: 'red' };
const ITEM_WORDS: Record<TaskItemStatus, string> = { Queued: 'Waiting', Processing: 'Re-running', Completed: 'Re-run', Failed: 'Not re-run' };
// Progress events can come many times a second; the transaction list is read again at most this often.
const ITEM_REFRESH_MS = 1000;
// The live feed sends task progress to admins only; for others the page asks again this often while the task runs.
const POLL_MS = 5000;

function TransactionLink({ id }: { id: string }) {
  return (
    <Anchor component={Link} to={`/transactions/${id}`} ff="monospace" size="sm">
      {id}
    </Anchor>
  );
}

function Items({ items, offset }: { items: TaskTransactionView[]; offset: number }) {
  if (items.length === 0) return <Text>No transactions on this page.</Text>;
  return (
    <Table.ScrollContainer minWidth={760}>
      <Table striped aria-label="Transactions of the task" verticalSpacing="xs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={50}>#</Table.Th>
            <Table.Th>Transaction</Table.Th>
            <Table.Th>Re-run</Table.Th>
            <Table.Th>New transaction</Table.Th>
            <Table.Th>Result</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((item, i) => (
            <Table.Tr key={`${item.tid}-${offset + i}`}>
              <Table.Td>{offset + i + 1}</Table.Td>
              <Table.Td>
                <TransactionLink id={item.tid} />
              </Table.Td>
              <Table.Td>
                <Stack gap={2}>
                  <Badge color={ITEM_COLOR[item.tstatus] ?? 'gray'} variant="light">
                    {ITEM_WORDS[item.tstatus] ?? item.tstatus}
                  </Badge>
                  {item.error === undefined ? null : (
                    <Text size="xs" c="red" style={{ wordBreak: 'break-word' }}>
                      {item.error}
                    </Text>
                  )}
                </Stack>
              </Table.Td>
              <Table.Td>{item.rerunID === undefined ? <Text c="dimmed">–</Text> : <TransactionLink id={item.rerunID} />}</Table.Td>
              <Table.Td>{item.rerunStatus === undefined ? <Text c="dimmed">–</Text> : <StatusBadge status={item.rerunStatus} />}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** The outcome counts in a sentence: "Of 3 finished: 2 succeeded, 1 failed". */
function outcomeText(task: TaskDetail): string {
  const finished = task.totalTransactions - task.remainingTransactions;
  if (finished <= 0) return 'None re-run yet';
  const other = otherCount(task);
  return `Of ${finished} finished: ${task.succeededTransactions} succeeded, ${task.failedTransactions} failed${other > 0 ? `, ${other} answered with problems` : ''}`;
}

export function TaskDetailPage() {
  const { id = '' } = useParams();
  const { detail, detailPage, detailError, open, updated, removed, progress } = useTasks();
  const [actionError, setActionError] = useState<string | null>(null);
  const navigate = useNavigate();
  const task = detail?._id === id ? detail : null;
  const refetch = useCallback(() => void open(id, useTasks.getState().detailPage), [open, id]);
  useEffect(() => void open(id, 0), [open, id]);

  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => {
    const off = live.on('task.progress', (event) => {
      if (event.taskId !== id) return;
      progress(event);
      timer.current ??= setTimeout(() => {
        timer.current = null;
        refetch();
      }, ITEM_REFRESH_MS);
    });
    const offReconnect = live.onReconnect(refetch);
    return () => {
      off();
      offReconnect();
      if (timer.current !== null) clearTimeout(timer.current);
      timer.current = null;
    };
  }, [id, progress, refetch]);

  const admin = isAdmin(useSession((s) => s.user));
  const running = task !== null && (task.status === 'Queued' || task.status === 'Processing');
  useEffect(() => {
    if (admin || !running) return;
    const poll = setInterval(refetch, POLL_MS);
    return () => clearInterval(poll);
  }, [admin, running, refetch]);

  if (task === null) {
    return (
      <Stack>
        <Anchor component={Link} to="/tasks" size="sm">
          ← All tasks
        </Anchor>
        <PageHeader title="Re-run task" />
        <ErrorAlert error={detailError} action="load the task" />
        {detailError === null ? <Loader aria-label="Loading the task" /> : null}
      </Stack>
    );
  }
  const pages = Math.max(1, Math.ceil(task.totalTransactions / TASK_ITEM_PAGE_SIZE));
  const warning = outcomeWarning(task);
  const rows: FieldRow[] = [
    ['Status', <TaskStatusBadge key="s" task={task} />],
    ['Outcome', outcomeText(task)],
    ['Progress', <TaskProgress key="p" task={task} />],
    ['Created by', task.user],
    ['Created', new Date(task.created).toLocaleString()],
    ['Finished', task.completedDate === undefined ? '–' : new Date(task.completedDate).toLocaleString()],
    ['Re-run at a time', String(task.batchSize)],
    ['Task id', <Code key="id">{task._id}</Code>],
  ];
  return (
    <Stack>
      <Anchor component={Link} to="/tasks" size="sm">
        ← All tasks
      </Anchor>
      <PageHeader title="Re-run task">
        <TaskActions task={task} size="sm" onChanged={updated} onDeleted={() => {
          removed(task._id);
          void navigate('/tasks');
        }} onError={setActionError} />
      </PageHeader>
      {actionError === null ? null : <ErrorAlert error={new Error(actionError)} onClose={() => setActionError(null)} />}
      <ErrorAlert error={detailError} action="refresh the task" />
      {warning === null ? null : (
        <Alert color={warning.color} title={warning.title}>
          {warning.text}
        </Alert>
      )}
      <FieldList rows={rows} withTableBorder aria-label="Task summary" />
      <Group justify="space-between" align="center">
        <Text fw={600} component="h2" size="lg">
          Transactions
        </Text>
        {pages > 1 ? (
          <nav aria-label="Pages of transactions">
            <Pagination
              total={pages}
              value={detailPage + 1}
              onChange={(p) => void open(id, p - 1)}
              size="sm"
              getItemProps={(p) => ({ 'aria-label': `Page ${p}` })}
              getControlProps={(control) => ({ 'aria-label': control === 'previous' ? 'Previous page' : control === 'next' ? 'Next page' : control === 'first' ? 'First page' : 'Last page' })}
            />
          </nav>
        ) : null}
      </Group>
      <Items items={task.transactions} offset={detailPage * TASK_ITEM_PAGE_SIZE} />
    </Stack>
  );
}
