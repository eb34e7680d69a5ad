/**
 * Shown over the current page when the session has expired: signing in again resumes the call that failed, and the
 * page underneath (an unsaved form, a filtered list) is still there.
 */
import { Button, Group, Modal, Text } from '@mantine/core';
import { useSession } from '../../stores/session';
import { SignInForm } from './SignInPage';

export function ReauthModal() {
  const status = useSession((s) => s.status);
  const user = useSession((s) => s.user);
  const abandon = useSession((s) => s.abandon);
  return (
    <Modal opened={status === 'expired'} onClose={() => undefined} withCloseButton={false} closeOnClickOutside={false} closeOnEscape={false} title="Your session has ended" centered>
      <Text size="sm" mb="md">
        Sign in again to carry on. Nothing on this page has been lost, and what you were saving will be sent once you are signed in.
      </Text>
      {user?.provider === 'openid' ? (
        // No password here: signing in again goes through the provider, which leaves this page.
        <Text size="sm">You signed in through your organisation&apos;s sign-in page; go to the sign-in page to sign in there again.</Text>
      ) : (
        <SignInForm initialEmail={user?.email ?? ''} />
      )}
      <Group justify="flex-end" mt="sm">
        <Button variant="subtle" color="gray" onClick={abandon}>
          Discard and go to sign-in
        </Button>
      </Group>
    </Modal>
  );
}
