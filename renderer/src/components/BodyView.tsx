/** A stored request or response body, laid out as JSON, XML or HL7 v2 when it is one, with notices for cut or removed bodies. */
import { useMemo, useState } from 'react';
import type { ReactNode } from 'react';
import { Alert, Anchor, Badge, Box, Button, Code, CopyButton, Group, SegmentedControl, Text } from '@mantine/core';
import { Link } from 'react-router';
import { detectFormat, hl7Segments, prettyJson, prettyXml } from '../data/body-format';
import type { BodyFormat } from '../data/body-format';
import { readHl7 } from '../data/hl7';
import { fhirKeys, hl7Keys, markedParts, markedWords } from '../data/search-keys';
import type { MessageKey } from '../data/search-keys';
import { keySearchLink } from '../data/transaction-filters';
import { Hl7View } from './Hl7View';
import { useSearchHighlight, useSearchWords } from './search-highlight';

const KEY_LABEL: Record<MessageKey['name'], string> = { patientId: 'Patient ID', orderNumber: 'Order number' };

/** Links from the identifiers of a message to every message with the same value (the list searched by it). */
function KeyLinks({ keys, label }: { keys: MessageKey[]; label: string }) {
  if (keys.length === 0) return null;
  return (
    <Group gap="xs" mt={6} component="nav" aria-label={`Search by the identifiers of the ${label.toLowerCase()}`}>
      <Text size="xs" c="dimmed">
        Every message with:
      </Text>
      {keys.map((key) => (
        <Anchor
          key={`${key.name}|${key.value}|${key.authority ?? ''}`}
          component={Link}
          to={keySearchLink(key.name, key.value, key.authority)}
          size="xs"
          title={`Every message with ${KEY_LABEL[key.name].toLowerCase()} ${key.value}${key.authority === undefined ? '' : ` (${key.authority})`} (${key.field})`}
        >
          {KEY_LABEL[key.name]} {key.value}
          {key.authority === undefined ? '' : ` (${key.authority})`}
        </Anchor>
      ))}
    </Group>
  );
}

/** A text search's words marked where they stand as whole words. */
function MarkedWords({ text, words }: { text: string; words: readonly string[] }) {
  if (words.length === 0) return <>{text}</>;
  return (
    <>
      {markedWords(text, words).map((part, i) =>
        part.marked ? (
          <mark key={i} data-search-word>
            {part.text}
          </mark>
        ) : (
          part.text
        ),
      )}
    </>
  );
}

/** Text with the searched value marked wherever it appears, and the searched words in the rest. */
function Marked({ text, value, words }: { text: string; value: string | undefined; words: readonly string[] }) {
  if (value === undefined) return <MarkedWords text={text} words={words} />;
  return (
    <>
      {markedParts(text, value).map((part, i) =>
        part.marked ? (
          <mark key={i} data-search-match>
            {part.text}
          </mark>
        ) : (
          <MarkedWords key={i} text={part.text} words={words} />
        ),
      )}
    </>
  );
}

const FORMAT_NAME: Record<BodyFormat, string> = { json: 'JSON', xml: 'XML', hl7: 'HL7 v2', text: 'Text' };
export interface BodyViewProps {
  /** Names the region, e.g. "Request body". */
  label: string;
  body?: string;
  bodyTruncated?: boolean;
  bodyRemoved?: boolean;
  /** The answer arrived but the store could not keep its body (a full disk). */
  bodyNotStored?: boolean;
  headers?: Record<string, string>;
}

function headerValue(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

export function BodyView({ label, body, bodyTruncated = false, bodyRemoved = false, bodyNotStored = false, headers }: BodyViewProps) {
  const [layout, setLayout] = useState<'formatted' | 'raw'>('formatted');
  const contentType = headerValue(headers, 'content-type');
  const format = useMemo(() => (body === undefined ? 'text' : detectFormat(body, contentType)), [body, contentType]);
  const formatted = useMemo((): string | null => {
    if (body === undefined || format === 'text') return null;
    if (format === 'json') return prettyJson(body);
    if (format === 'xml') return prettyXml(body);
    // HL7 is laid out by Hl7View; this only says a layout exists (a body of no segments has none).
    return hl7Segments(body).length > 0 ? body : null;
  }, [body, format]);
  const highlight = useSearchHighlight();
  const words = useSearchWords();
  const keys = useMemo((): MessageKey[] => {
    if (body === undefined || body === '') return [];
    if (format === 'hl7') return hl7Keys(readHl7(body));
    return format === 'json' ? fhirKeys(body) : [];
  }, [body, format]);

  let content: ReactNode;
  if (bodyRemoved) {
    content = (
      <Alert color="gray" title="Body removed">
        This body was deleted by the channel&apos;s body retention setting; the rest of the transaction is kept.
      </Alert>
    );
  } else if (bodyNotStored) {
    content = (
      <Alert color="red" title="Body not stored">
        This answer arrived, but Junction could not store its body (the disk was full or the store failed); the error is in Junction&apos;s log.
      </Alert>
    );
  } else if (body === undefined) {
    content = (
      <Text size="sm" c="dimmed">
        No body stored.
      </Text>
    );
  } else if (body === '') {
    content = (
      <Text size="sm" c="dimmed">
        Empty body.
      </Text>
    );
  } else {
    const canFormat = formatted !== null;
    const showFormatted = canFormat && layout === 'formatted';
    content = (
      <>
        <Group justify="space-between" mb="xs" gap="xs">
          <Group gap="xs">
            <Badge variant="outline" color="gray" style={{ textTransform: 'none' }}>
              {FORMAT_NAME[format]}
            </Badge>
            <Text size="xs" c="dimmed">
              {body.length.toLocaleString()} characters{contentType === undefined ? '' : ` · ${contentType}`}
            </Text>
            {format !== 'text' && !canFormat && (
              <Text size="xs" c="dimmed">
                (shown as sent: it could not be read as {FORMAT_NAME[format]})
              </Text>
            )}
          </Group>
          <Group gap="xs">
            {canFormat && (
              <SegmentedControl
                size="xs"
                aria-label={`${label} layout`}
                value={layout}
                onChange={(v) => setLayout(v === 'raw' ? 'raw' : 'formatted')}
                data={[
                  { value: 'formatted', label: 'Formatted' },
                  { value: 'raw', label: 'As sent' },
                ]}
              />
            )}
            <CopyButton value={body}>
              {({ copied, copy }) => (
                <Button size="compact-xs" variant="default" onClick={copy} aria-label={`Copy ${label.toLowerCase()}`}>
                  {copied ? 'Copied' : 'Copy'}
                </Button>
              )}
            </CopyButton>
          </Group>
        </Group>
        {bodyTruncated && (
          <Alert color="yellow" mb="xs" title="Only the beginning is shown">
            This body is longer than what Junction stored or shows here, so it is cut short
            {format !== 'text' ? ' and may not be laid out' : ''}.
          </Alert>
        )}
        {showFormatted && format === 'hl7' ? (
          <Hl7View body={body} />
        ) : (
          <Code block data-format={format} style={{ whiteSpace: 'pre', overflow: 'auto', maxHeight: 480 }}>
            <Marked text={showFormatted ? (formatted ?? body) : body.replace(/\r(?!\n)/g, '\n')} value={highlight?.value} words={words} />
          </Code>
        )}
        <KeyLinks keys={keys} label={label} />
      </>
    );
  }
  return (
    <Box component="section" aria-label={label}>
      {content}
    </Box>
  );
}
