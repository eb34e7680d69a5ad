/** A yes/no question before something that cannot be undone, with the failure shown in the dialog if it happens. */
import { useState } from 'react';
import type { ReactNode } from 'react';
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { ErrorAlert } from './ErrorAlert';

export interface ConfirmDialogProps {
  opened: boolean;
  title: string;
  children: ReactNode;
  /** The confirming button's words, such as "Delete client". */
  confirmLabel: string;
  /** Words for a failure: "delete the client". */
  action: string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}

export function ConfirmDialog({ opened, title, children, confirmLabel, action, onConfirm, onClose }: ConfirmDialogProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const close = () => {
    setError(null);
    onClose();
  };
  const confirm = () => {
    setBusy(true);
    setError(null);
    onConfirm().then(
      () => {
        setBusy(false);
        close();
      },
      (err: unknown) => {
        setBusy(false);
        setError(err);
      },
    );
  };
  return (
    <Modal opened={opened} onClose={close} title={title} centered>
      <Stack>
        {typeof children === 'string' ? <Text>{children}</Text> : children}
        <ErrorAlert error={error} action={action} />
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            Cancel
          </Button>
          <Button color="red" onClick={confirm} loading={busy} data-autofocus>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
