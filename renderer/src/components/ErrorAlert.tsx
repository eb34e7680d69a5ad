import { Alert } from '@mantine/core';
import { describeError } from '../api/errors';

/** An API or other failure, in words, announced to screen readers. */
export function ErrorAlert({ error, action, onClose }: { error: unknown; action?: string; onClose?: () => void }) {
  if (error === null || error === undefined) return null;
  return (
    <Alert color="red" title="Something went wrong" role="alert" withCloseButton={onClose !== undefined} onClose={onClose} closeButtonLabel="Dismiss">
      {describeError(error, action)}
    </Alert>
  );
}
