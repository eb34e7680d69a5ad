/**
 * "Send test message" (issue 36): a sample for the channel's kind, which the administrator edits or confirms; only
 * what the form then holds is sent, through the channel to its routes, as a real transaction marked as a test.
 * The outcome is shown with a link to the transaction.
 */
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Alert, Anchor, Button, Group, Modal, NativeSelect, SimpleGrid, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { Link } from 'react-router';
import type { Channel, TestMessageAnswer } from '../../../../service/contracts/channels';
import { ApiError } from '../../api/client';
import { sendTestMessage } from '../../api/channels';
import { ErrorAlert } from '../../components/ErrorAlert';
import { StatusBadge } from '../../components/StatusBadge';
import { channelKind } from '../../data/kinds';
import { HTTP_METHODS } from './form';
import { hl7ForSending, testSample } from './test-samples';
import type { TestSample } from './test-samples';

export interface TestMessageDialogProps {
  /** The channel to send through; null when closed. */
  channel: Channel | null;
  onClose: () => void;
}

const MONO = { input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 'var(--mantine-font-size-xs)' } };

/** The outcome in a sentence, by the transaction's status. */
function outcomeWords(answer: TestMessageAnswer): string {
  const response = answer.responseStatus === undefined ? '' : ` (the primary route answered ${answer.responseStatus})`;
  if (answer.status === 'Processing') return 'Sent; the transaction had not finished when the channel’s timeout passed.';
  if (answer.status === 'Failed') return `Sent, and it failed${answer.error === undefined ? response : `: ${answer.error}`}.`;
  return `Sent: the transaction is ${answer.status}${response}.`;
}

function Form({ channel, onClose }: { channel: Channel; onClose: () => void }) {
  const [sample] = useState<TestSample>(() => testSample(channel, new Date(), `JT${Date.now().toString(36).toUpperCase()}`));
  const [body, setBody] = useState(sample.body);
  const [method, setMethod] = useState(sample.method ?? 'POST');
  const [path, setPath] = useState(sample.path ?? '/');
  const [contentType, setContentType] = useState(sample.contentType ?? '');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [answer, setAnswer] = useState<TestMessageAnswer | null>(null);
  const http = !channelKind(channel.type).listens;
  const methods = channel.methods.length === 0 ? HTTP_METHODS : channel.methods;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSending(true);
    setError(null);
    setProblems({});
    setAnswer(null);
    const text = sample.hl7 ? hl7ForSending(body) : body;
    const request = http ? sendTestMessage(channel._id, { body: text, method, path, ...(contentType.trim() === '' ? {} : { contentType: contentType.trim() }) }) : sendTestMessage(channel._id, { body: text });
    void request
      .then(setAnswer, (err: unknown) => {
        const fields = err instanceof ApiError ? err.fieldErrors() : {};
        if (Object.keys(fields).length > 0) setProblems(fields);
        setError(err);
      })
      .finally(() => setSending(false));
  };

  return (
    <form onSubmit={submit} aria-label={`Test message for ${channel.name}`} noValidate>
      <Stack>
        <Text size="sm">
          Junction sends exactly what is below through “{channel.name}” to its routes, as a real transaction marked as a test (the property
          test: true). The receiving systems get it like any other message, so use test data.
        </Text>
        {http && (
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <NativeSelect label="Method" data={methods} value={method} onChange={(e) => setMethod(e.currentTarget.value)} error={problems.method} />
            <TextInput label="Path" required value={path} onChange={(e) => setPath(e.currentTarget.value)} error={problems.path} styles={MONO} />
            <TextInput label="Content type" value={contentType} onChange={(e) => setContentType(e.currentTarget.value)} error={problems.contentType} />
          </SimpleGrid>
        )}
        <Textarea
          label={http ? 'Body' : 'Message'}
          description={sample.hl7 ? 'An HL7 v2 message, one segment per line; each line break is sent as the segment separator (CR).' : undefined}
          autosize
          minRows={6}
          maxRows={16}
          value={body}
          onChange={(e) => setBody(e.currentTarget.value)}
          error={problems.body}
          styles={MONO}
        />
        <ErrorAlert error={error} action="send the test message" />
        {answer !== null && (
          <Alert color={answer.status === 'Failed' ? 'red' : answer.status === 'Processing' ? 'yellow' : 'teal'} role="status" title="Test message sent">
            <Stack gap={4} align="flex-start">
              <Group gap="xs">
                <StatusBadge status={answer.status} />
                <Text size="sm">{outcomeWords(answer)}</Text>
              </Group>
              <Anchor component={Link} to={`/transactions/${answer.transactionId}`} size="sm">
                Open the transaction
              </Anchor>
            </Stack>
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Close
          </Button>
          <Button type="submit" loading={sending}>
            Send test message
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function TestMessageDialog({ channel, onClose }: TestMessageDialogProps) {
  // The form goes when the dialog closes, so each opening starts from a fresh sample.
  return (
    <Modal opened={channel !== null} onClose={onClose} title={`Send a test message through “${channel?.name ?? ''}”`} size="xl">
      {channel !== null && <Form key={channel._id} channel={channel} onClose={onClose} />}
    </Modal>
  );
}
