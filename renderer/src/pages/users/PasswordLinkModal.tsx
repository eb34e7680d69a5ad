/**
 * Makes a set-password link for a user and shows it once, for the admin to pass on: how an invited user is onboarded
 * (and a forgotten password reset) until Junction can send the link by email itself.
 */
import { useEffect, useState } from 'react';
import { Alert, Button, Code, CopyButton, Group, Loader, Modal, Stack, Text } from '@mantine/core';
import type { PasswordTokenAnswer, PublicUser } from '../../../../service/contracts/users';
import { issuePasswordToken, setPasswordLink } from '../../api/users';
import { ErrorAlert } from '../../components/ErrorAlert';

export interface PasswordLinkModalProps {
  /** null: closed. */
  user: PublicUser | null;
  /** Called once a link was made, so the list can show the pending link. */
  onIssued: () => void;
  onClose: () => void;
}

function LinkBody({ user, onIssued }: { user: PublicUser; onIssued: () => void }) {
  const [issued, setIssued] = useState<PasswordTokenAnswer | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let current = true;
    issuePasswordToken(user.email).then(
      (answer) => {
        if (!current) return;
        setIssued(answer);
        onIssued();
      },
      (err: unknown) => {
        if (current) setError(err);
      },
    );
    return () => {
      current = false;
    };
    // One link per opening: a re-render must not make another.
  }, [user.email]);

  if (error !== null) return <ErrorAlert error={error} action="make the link" />;
  if (issued === null) return <Loader aria-label="Making the link" />;
  const link = setPasswordLink(issued.token);
  return (
    <Stack>
      <Text size="sm">
        {issued.tokenType === 'newUser'
          ? `Send this link to ${user.firstname} ${user.surname}: it lets them choose a password and start using the console.`
          : `Send this link to ${user.firstname} ${user.surname}: it lets them choose a new password.`}{' '}
        It works once, until {new Date(issued.expiry).toLocaleString()}; any earlier link for this user no longer works.
      </Text>
      <Code block style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }} aria-label="Set-password link">
        {link}
      </Code>
      <Alert color="yellow">Junction keeps only a fingerprint of the link, so it cannot be shown again. Treat it like a password.</Alert>
      <Group justify="flex-end">
        <CopyButton value={link}>{({ copied, copy }) => <Button onClick={copy}>{copied ? 'Copied' : 'Copy link'}</Button>}</CopyButton>
      </Group>
    </Stack>
  );
}

export function PasswordLinkModal({ user, onIssued, onClose }: PasswordLinkModalProps) {
  return (
    <Modal opened={user !== null} onClose={onClose} title={`Set-password link for ${user?.email ?? ''}`} size="lg">
      {user !== null && <LinkBody key={user._id} user={user} onIssued={onIssued} />}
    </Modal>
  );
}
