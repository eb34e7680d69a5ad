/**
 * The first-run checklist at the top of an empty dashboard: create a channel, add a client, send a first message
 * (its address and a command to copy), each ticked off as it happens. Decided from what exists (first-run.ts), so it
 * goes once a first message has gone through, or when an administrator hides it.
 */
import { useEffect, useState } from 'react';
import type { ReactNode } from 'react';
import { Alert, Anchor, Badge, Box, Button, Code, CopyButton, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { live } from '../../api/live';
import { ErrorAlert } from '../../components/ErrorAlert';
import { isAdmin, useSession } from '../../stores/session';
import { CHECK_MS, useFirstRun } from '../../stores/first-run';
import { DISMISSED_KEY, FIRST_RUN_STEPS, allDone, exampleChannel, exampleClient, firstMessage, showChecklist, stepsDone } from './first-run';
import type { FirstRunStep } from './first-run';

function readDismissed(): boolean {
  try {
    return window.localStorage.getItem(DISMISSED_KEY) === 'yes';
  } catch {
    return false;
  }
}

function Step({ number, title, done, children }: { number: number; title: string; done: boolean; children: ReactNode }) {
  return (
    <Box component="li" data-step-done={done} py="sm" style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}>
      <Group gap="sm" wrap="nowrap" align="flex-start">
        {/* Done or not is said in words, not by colour or a tick alone. */}
        <Badge color={done ? 'teal' : 'gray'} variant={done ? 'filled' : 'light'} style={{ flexShrink: 0, textTransform: 'none' }} w={72}>
          {done ? '✓ Done' : `Step ${number}`}
        </Badge>
        <Stack gap={4} style={{ flex: 1, minWidth: 0 }}>
          <Text fw={600} td={done ? 'line-through' : undefined}>
            {title}
          </Text>
          {children}
        </Stack>
      </Group>
    </Box>
  );
}

function FirstMessageHelp() {
  const channels = useFirstRun((s) => s.channels) ?? [];
  const clients = useFirstRun((s) => s.clients) ?? [];
  const ports = useFirstRun((s) => s.ports);
  const selfSignedCertificate = useFirstRun((s) => s.selfSignedCertificate);
  const channel = exampleChannel(channels);
  if (channel === null) {
    return (
      <Text size="sm" c="dimmed">
        Once a channel is enabled, the address to send to and a command to try it appear here.
      </Text>
    );
  }
  const message = firstMessage({ channel, client: exampleClient(channel, clients), ports, host: window.location.hostname, selfSignedCertificate });
  if (message === null) {
    return (
      <Text size="sm" c="dimmed">
        Junction is not listening for the channel {channel.name} yet: check its port on the Channels page.
      </Text>
    );
  }
  return (
    <Stack gap={6}>
      <Text size="sm">
        Have the sending system send to the channel {channel.name} at{' '}
        <Code data-testid="first-message-address" style={{ overflowWrap: 'anywhere' }}>
          {message.address}
        </Code>
        , or try it from a terminal:
      </Text>
      <Group gap="xs" wrap="nowrap" align="flex-start">
        <Code block aria-label="Example command" style={{ flex: 1, minWidth: 0, whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {message.command}
        </Code>
        <CopyButton value={message.command}>
          {({ copied, copy }) => (
            <Button size="compact-xs" variant="default" onClick={copy} aria-label="Copy the example command">
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
      </Group>
      {message.notes.map((note) => (
        <Text key={note} size="xs" c="dimmed">
          {note}
        </Text>
      ))}
    </Stack>
  );
}

const TITLES: Record<FirstRunStep, string> = {
  channel: 'Create a channel',
  client: 'Add a client',
  message: 'Send a first message',
};

export function FirstRunChecklist() {
  const admin = isAdmin(useSession((s) => s.user));
  const channels = useFirstRun((s) => s.channels);
  const clients = useFirstRun((s) => s.clients);
  const anyTransaction = useFirstRun((s) => s.anyTransaction);
  const error = useFirstRun((s) => s.error);
  const [dismissed, setDismissed] = useState(readDismissed);
  const [shownBefore, setShownBefore] = useState(false);
  const done = stepsDone({ channels, clients, anyTransaction });
  const show = showChecklist(done, { admin, dismissed, shownBefore });
  const finished = done !== null && allDone(done);

  useEffect(() => {
    if (show) setShownBefore(true);
  }, [show]);

  // Read when the dashboard opens; a transaction on the live feed ticks the last step as it arrives.
  useEffect(() => {
    if (!admin || dismissed) return;
    const firstRun = useFirstRun.getState();
    const offs = [live.on('transaction.started', () => firstRun.transactionSeen()), live.onReconnect(() => void firstRun.load())];
    void firstRun.load();
    return () => {
      for (const off of offs) off();
    };
  }, [admin, dismissed]);

  // While a step is left, look again now and then, and when the window comes back into view (a channel made in another tab).
  const watching = show && !finished;
  useEffect(() => {
    if (!watching) return;
    const load = () => void useFirstRun.getState().load();
    const timer = setInterval(load, CHECK_MS);
    window.addEventListener('focus', load);
    return () => {
      clearInterval(timer);
      window.removeEventListener('focus', load);
    };
  }, [watching]);

  if (!show || done === null) return null;

  const hide = () => {
    try {
      window.localStorage.setItem(DISMISSED_KEY, 'yes');
    } catch {
      // Without storage the guide is hidden until the next visit only.
    }
    setDismissed(true);
  };
  const count = FIRST_RUN_STEPS.filter((step) => done[step]).length;

  return (
    <Paper withBorder p="md" mb="md" component="section" aria-labelledby="first-run-title">
      <Group justify="space-between" gap="xs" mb={4}>
        <Title order={2} size="h4" id="first-run-title">
          Get started
        </Title>
        <Button variant="default" size="xs" onClick={hide}>
          {finished ? 'Close' : 'Hide this guide'}
        </Button>
      </Group>
      <Text size="sm" mb="xs" aria-live="polite" data-testid="first-run-progress">
        {finished ? 'All three steps are done: messages are flowing through Junction.' : `${count} of 3 steps done. Each is ticked off here as it happens.`}
      </Text>
      <ErrorAlert error={error} action="check what is set up" />
      <Box component="ol" m={0} p={0} style={{ listStyle: 'none' }} aria-label="Steps to a first message">
        <Step number={1} title={TITLES.channel} done={done.channel}>
          <Text size="sm">A channel is where a sending system delivers its messages, and the routes say where Junction passes them on.</Text>
          {!done.channel && (
            <Anchor component={Link} to="/channels/new" size="sm">
              Create a channel
            </Anchor>
          )}
        </Step>
        <Step number={2} title={TITLES.client} done={done.client}>
          <Text size="sm">A client is a sending system, with the credentials it signs its messages with; a private channel lets in only the clients and roles it allows.</Text>
          {!done.client && (
            <Anchor component={Link} to="/clients" size="sm">
              Add a client
            </Anchor>
          )}
        </Step>
        <Step number={3} title={TITLES.message} done={done.message}>
          {done.message ? (
            <Anchor component={Link} to="/transactions" size="sm">
              See it in Transactions
            </Anchor>
          ) : (
            <FirstMessageHelp />
          )}
        </Step>
      </Box>
      {finished && (
        <Alert color="teal" mt="xs" title="You are set up">
          From now on the dashboard shows today&apos;s traffic. Add more channels and clients from the menu at any time.
        </Alert>
      )}
    </Paper>
  );
}
