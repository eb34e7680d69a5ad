/** Pieces both task pages use: the status badge, the progress bar, and the pause/resume/cancel/delete buttons. */
import { useState } from 'react';
import { Badge, Button, Group, Modal, Progress, Stack, Text } from '@mantine/core';
import type { TaskStatus, TaskView } from '../../../../service/contracts/tasks';
import { changeTask, deleteTask } from '../../api/tasks';
import { describeError } from '../../api/errors';
import { useTasks } from '../../stores/tasks';

const STATUS_COLOR: Record<TaskStatus, string> = { Queued: 'blue', Processing: 'cyan', Paused: 'yellow', Cancelled: 'gray', Completed: 'teal' };

export function TaskStatusBadge({ status }: { status: TaskStatus }) {
  return (
    <Badge color={STATUS_COLOR[status] ?? 'gray'} variant="light">
      {status}
    </Badge>
  );
}

/** "3 of 10 re-run" with a bar. */
export function TaskProgress({ task }: { task: TaskView }) {
  const total = task.totalTransactions;
  const done = Math.max(0, total - task.remainingTransactions);
  const percent = total === 0 ? 100 : Math.round((done / total) * 100);
  const words = `${done} of ${total} re-run`;
  return (
    <Stack gap={2} miw={140}>
      {/* The bar itself is the progressbar, so it is there (and says "0 of 3") even before its filled part has width. */}
      <Progress.Root role="progressbar" aria-label={`Progress: ${words}`} aria-valuemin={0} aria-valuemax={total} aria-valuenow={done} aria-valuetext={words}>
        <Progress.Section value={percent} withAria={false} color={task.status === 'Cancelled' ? 'gray' : undefined} striped={task.status === 'Processing'} animated={task.status === 'Processing'} />
      </Progress.Root>
      <Text size="xs" c="dimmed">
        {words}
      </Text>
    </Stack>
  );
}

/** A short name for a task in button labels and dialogs: its creation time. */
export function taskName(task: TaskView): string {
  return `task created ${new Date(task.created).toLocaleString()}`;
}

type Confirming = 'cancel' | 'delete' | null;

/**
 * The actions a task's state allows. `onChanged` gets the updated task (and the store's event count when the change
 * was sent), `onDeleted` fires after a delete, and
 * `onError` gets a sentence for any failure.
 */
export function TaskActions({ task, onChanged, onDeleted, onError, size = 'xs' }: { task: TaskView; onChanged: (task: TaskView, sentSeq: number) => void; onDeleted: () => void; onError: (message: string | null) => void; size?: 'xs' | 'sm' }) {
  const [busy, setBusy] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<Confirming>(null);
  const name = taskName(task);

  const run = (what: string, action: () => Promise<void>) => {
    setBusy(what);
    onError(null);
    action()
      .catch((err: unknown) => onError(describeError(err, `${what} the ${name}`)))
      .finally(() => {
        setBusy(null);
        setConfirming(null);
      });
  };
  const setStatus = (what: string, status: 'Paused' | 'Queued' | 'Cancelled') =>
    run(what, async () => {
      const sentSeq = useTasks.getState().eventSeq;
      onChanged(await changeTask(task._id, { status }), sentSeq);
    });

  const running = task.status === 'Queued' || task.status === 'Processing';
  return (
    <Group gap={6} wrap="wrap">
      {running ? (
        <Button size={size} variant="default" aria-label={`Pause ${name}`} loading={busy === 'pause'} onClick={() => setStatus('pause', 'Paused')}>
          Pause
        </Button>
      ) : null}
      {task.status === 'Paused' ? (
        <Button size={size} variant="default" aria-label={`Resume ${name}`} loading={busy === 'resume'} onClick={() => setStatus('resume', 'Queued')}>
          Resume
        </Button>
      ) : null}
      {running || task.status === 'Paused' ? (
        <Button size={size} variant="light" color="orange" aria-label={`Cancel ${name}`} onClick={() => setConfirming('cancel')}>
          Cancel
        </Button>
      ) : null}
      {task.status !== 'Processing' ? (
        <Button size={size} variant="subtle" color="red" aria-label={`Delete ${name}`} onClick={() => setConfirming('delete')}>
          Delete
        </Button>
      ) : null}
      <Modal opened={confirming !== null} onClose={() => setConfirming(null)} title={confirming === 'cancel' ? 'Cancel this task?' : 'Delete this task?'}>
        <Stack>
          <Text>
            {confirming === 'cancel'
              ? `The ${name} stops: the transactions not re-run yet (${task.remainingTransactions}) will not be re-run. This cannot be undone.`
              : `The ${name} and its list of transactions are removed. Transactions already re-run stay in the transaction log.`}
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(null)} data-autofocus>
              {confirming === 'cancel' ? 'Keep it running' : 'Keep it'}
            </Button>
            {confirming === 'cancel' ? (
              <Button color="orange" loading={busy === 'cancel'} onClick={() => setStatus('cancel', 'Cancelled')}>
                Cancel task
              </Button>
            ) : (
              <Button
                color="red"
                loading={busy === 'delete'}
                onClick={() =>
                  run('delete', async () => {
                    await deleteTask(task._id);
                    onDeleted();
                  })
                }
              >
                Delete task
              </Button>
            )}
          </Group>
        </Stack>
      </Modal>
    </Group>
  );
}
