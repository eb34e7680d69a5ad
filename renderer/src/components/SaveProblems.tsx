/** What went wrong with a save, above a form: the failure itself, or a pointer to the messages under the fields. */
import { Alert } from '@mantine/core';
import { ErrorAlert } from './ErrorAlert';
import type { SplitErrors } from './form-errors';

/** `action` finishes "Could not …" ("save the user"); `title` heads the pointer ("The user was not saved"). */
export function SaveProblems({ server, action, title }: { server: SplitErrors; action: string; title: string }) {
  if (server.general !== null) return <ErrorAlert error={server.general} action={action} />;
  if (Object.keys(server.fields).length === 0) return null;
  return (
    <Alert color="red" role="alert" title={title}>
      Some fields need changing: see the messages under them.
    </Alert>
  );
}
