/** A stored request or response body, laid out as JSON, XML or HL7 v2 when it is one, with notices for cut or removed bodies. */
import { Fragment, useMemo, useState } from 'react';
import type { ReactNode } from 'react';
import { Alert, Badge, Box, Button, Code, CopyButton, Group, SegmentedControl, Text } from '@mantine/core';
import { detectFormat, hl7Segments, prettyJson, prettyXml } from './body-format';
import type { BodyFormat } from './body-format';

const FORMAT_NAME: Record<BodyFormat, string> = { json: 'JSON', xml: 'XML', hl7: 'HL7 v2', text: 'Text' };
/** Larger HL7 bodies are shown without field colouring, which would mean tens of thousands of elements. */
const HIGHLIGHT_LIMIT = 256 * 1024;

export interface BodyViewProps {
  /** Names the region, e.g. "Request body". */
  label: string;
  body?: string;
  bodyTruncated?: boolean;
  bodyRemoved?: boolean;
  headers?: Record<string, string>;
}

function headerValue(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (headers === undefined) return undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

function Separator({ char }: { char: string }) {
  return (
    <Text span inherit c="dimmed">
      {char}
    </Text>
  );
}

function Hl7Segment({ segment }: { segment: string }) {
  const fields = segment.split('|');
  const header = fields[0] === 'MSH' || fields[0] === 'BHS' || fields[0] === 'FHS';
  return (
    <span style={{ display: 'block' }}>
      {fields.map((field, i) => (
        <Fragment key={i}>
          {i > 0 && <Separator char="|" />}
          {i === 0 ? (
            <Text span inherit fw={700} c="teal.8">
              {field}
            </Text>
          ) : header && i === 1 ? (
            // The encoding characters of a header segment, not separators.
            field
          ) : (
            field.split('^').map((component, j) => (
              <Fragment key={j}>
                {j > 0 && <Separator char="^" />}
                {component}
              </Fragment>
            ))
          )}
        </Fragment>
      ))}
    </span>
  );
}

export function BodyView({ label, body, bodyTruncated = false, bodyRemoved = false, headers }: BodyViewProps) {
  const [layout, setLayout] = useState<'formatted' | 'raw'>('formatted');
  const contentType = headerValue(headers, 'content-type');
  const format = useMemo(() => (body === undefined ? 'text' : detectFormat(body, contentType)), [body, contentType]);
  const formatted = useMemo((): { text: string | null; node: ReactNode | null } => {
    if (body === undefined || format === 'text') return { text: null, node: null };
    if (format === 'json') return { text: prettyJson(body), node: null };
    if (format === 'xml') return { text: prettyXml(body), node: null };
    const segments = hl7Segments(body);
    const text = segments.join('\n');
    if (body.length > HIGHLIGHT_LIMIT) return { text, node: null };
    return { text, node: segments.map((s, i) => <Hl7Segment key={i} segment={s} />) };
  }, [body, format]);

  let content: ReactNode;
  if (bodyRemoved) {
    content = (
      <Alert color="gray" title="Body removed">
        This body was deleted by the channel&apos;s body retention setting; the rest of the transaction is kept.
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
    const canFormat = formatted.text !== null;
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
        <Code block data-format={format} style={{ whiteSpace: 'pre', overflow: 'auto', maxHeight: 480 }}>
          {showFormatted ? (formatted.node ?? formatted.text) : body.replace(/\r(?!\n)/g, '\n')}
        </Code>
      </>
    );
  }
  return (
    <Box component="section" aria-label={label}>
      {content}
    </Box>
  );
}
