/**
 * Asks before deleting a contact group. When channel alerts still use the group the server refuses (409) and names
 * them: they are listed with links to their editors, where the group can be taken out of the alerts.
 */
import { useState } from 'react';
import { Alert, Anchor, Button, Group, List, Modal, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import type { ChannelUsingGroup, ContactGroup } from '../../../../service/contracts/contact-groups';
import { channelsBlockingDelete } from '../../api/contact-groups';
import { ErrorAlert } from '../../components/ErrorAlert';

export interface DeleteGroupDialogProps {
  group: ContactGroup | null;
  onConfirm: (group: ContactGroup) => Promise<void>;
  onClose: () => void;
}

export function DeleteGroupDialog({ group, onConfirm, onClose }: DeleteGroupDialogProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [blocking, setBlocking] = useState<ChannelUsingGroup[]>([]);
  const close = () => {
    setError(null);
    setBlocking([]);
    onClose();
  };
  const confirm = () => {
    if (group === null) return;
    setBusy(true);
    setError(null);
    setBlocking([]);
    onConfirm(group).then(
      () => {
        setBusy(false);
        close();
      },
      (err: unknown) => {
        setBusy(false);
        const channels = channelsBlockingDelete(err);
        if (channels.length > 0) setBlocking(channels);
        else setError(err);
      },
    );
  };
  return (
    <Modal opened={group !== null} onClose={close} title={`Delete contact group ${group?.group ?? ''}?`} centered>
      <Stack>
        {blocking.length === 0 ? (
          <Text>Its recipients stop getting the alerts sent to this group. This cannot be undone.</Text>
        ) : (
          <Alert color="orange" title="This group is still in use" role="alert">
            <Stack gap="xs">
              <Text size="sm">
                The alerts of {blocking.length === 1 ? 'this channel name' : 'these channels name'} the group. Take it out of their Alerts tab first, then delete it.
              </Text>
              <List size="sm" aria-label="Channels whose alerts use the group">
                {blocking.map((c) => (
                  <List.Item key={c._id}>
                    <Anchor component={Link} to={`/channels/${c._id}`}>
                      {c.name}
                    </Anchor>
                    {c.status === 'deleted' ? ' (deleted; its alerts come back if it is restored)' : c.status === 'disabled' ? ' (disabled)' : ''}
                  </List.Item>
                ))}
              </List>
            </Stack>
          </Alert>
        )}
        <ErrorAlert error={error} action="delete the contact group" />
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            {blocking.length === 0 ? 'Cancel' : 'Close'}
          </Button>
          {blocking.length === 0 && (
            <Button color="red" onClick={confirm} loading={busy} data-autofocus>
              Delete group
            </Button>
          )}
        </Group>
      </Stack>
    </Modal>
  );
}
