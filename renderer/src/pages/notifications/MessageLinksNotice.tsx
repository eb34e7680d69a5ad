/**
 * Where the links in alert, report and set-password emails point, from `GET /about`: a warning when no one set
 * `alerts.consoleURL`, since the address Junction guessed may not be one the recipients' machines reach.
 */
import { useEffect, useState } from 'react';
import { Alert, Anchor, Code, Text } from '@mantine/core';
import { Link } from 'react-router';
import type { AboutAnswer } from '../../../../service/contracts/api';
import { getAbout } from '../../api/about';

export function MessageLinksNotice() {
  const [links, setLinks] = useState<AboutAnswer['messageLinks']>(undefined);

  useEffect(() => {
    const abort = new AbortController();
    // Only a hint beside the list: if /about cannot be read, the page says nothing rather than an error of its own.
    getAbout(abort.signal).then(
      (about) => setLinks(about.messageLinks),
      () => undefined,
    );
    return () => abort.abort();
  }, []);

  if (links === undefined) return null;
  if (links.configured) {
    return (
      <Text size="sm" c="dimmed" data-testid="message-links">
        Links in emails open the console at <Code>{links.url}</Code> (alerts.consoleURL).
      </Text>
    );
  }
  return (
    <Alert color="yellow" title="Links in emails use a guessed address" data-testid="message-links">
      No console address is configured, so links in alert, report and set-password emails open <Code>{links.url}</Code>,
      which Junction guessed from its own listening address. Other machines may not reach it: set the address people open the console at on the{' '}
      <Anchor component={Link} to="/settings">
        Settings
      </Anchor>{' '}
      page (Links in messages), or <Code>alerts.consoleURL</Code> in the configuration file.
    </Alert>
  );
}
