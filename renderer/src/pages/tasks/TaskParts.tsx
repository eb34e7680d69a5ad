/**
 * Pieces both task pages use: the status badge with the outcome (how many re-runs succeeded and failed, in words and
 * colour), the progress bar, and the pause/resume/cancel/delete buttons.
 */
import { useState } from 'react';
import { Badge, Button, Group, Modal, Progress, Stack, Text } from '@mantine/core';
import type { TaskView } from '../../../../service/contracts/tasks';
import { changeTask, deleteTask } from '../../api/tasks';
import { describeError } from '../../api/errors';
import { useTasks } from '../../stores/tasks';
import { OUTCOME_COLOR, otherCount, outcomeWords, statusColor } from './outcome';

/** The task's status, coloured by its outcome once finished, and the outcome in words beside it. */
export function TaskStatusBadge({ task }: { task: TaskView }) {
  const words = outcomeWords(task);
  return (
    <Group gap={4} wrap="wrap">
      <Badge color={statusColor(task)} variant="light">
        {task.status}
      </Badge>
      {words === null ? null : (
        <Badge color={OUTCOME_COLOR[task.outcome]} variant="light" tt="none">
          {words}
        </Badge>
      )}
    </Group>
  );
}

/** "3 of 10 re-run" with a bar whose parts are the re-runs that succeeded, failed, or were answered with problems. */
export function TaskProgress({ task }: { task: TaskView }) {
  const total = task.totalTransactions;
  const done = Math.max(0, total - task.remainingTransactions);
  const words = `${done} of ${total} re-run`;
  const share = (n: number) => (total === 0 ? 0 : (n / total) * 100);
  const running = task.status === 'Processing';
  const parts = [
    { key: 'succeeded', value: share(task.succeededTransactions), color: OUTCOME_COLOR.succeeded },
    { key: 'failed', value: share(task.failedTransactions), color: OUTCOME_COLOR.failed },
    { key: 'other', value: share(otherCount(task)), color: OUTCOME_COLOR.mixed },
  ];
  return (
    <Stack gap={2} miw={140}>
      {/* The bar itself is the progressbar, so it is there (and says "0 of 3") even before its filled part has width. */}
      <Progress.Root role="progressbar" aria-label={`Progress: ${words}`} aria-valuemin={0} aria-valuemax={total} aria-valuenow={done} aria-valuetext={words}>
        {parts.map((part) => (part.value > 0 ? <Progress.Section key={part.key} value={part.value} withAria={false} color={part.color} striped={running} animated={running} /> : null))}
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
