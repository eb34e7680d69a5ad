/**
 * An HL7 v2 message as segments: one line per segment, the segment id in bold, each field named on hover (`PID-5`)
 * and its components set apart, with a summary of what the message is (type, control id, or an ACK's outcome). Long
 * messages draw their first segments and offer the rest, so the page stays usable for a message of thousands.
 */
import { Fragment, useMemo, useState } from 'react';
import { Badge, Button, Code, Group, Text } from '@mantine/core';
import { ACK_MEANING, SEGMENT_LIMIT, readHl7, segmentCounts, visibleSegments } from '../data/hl7';
import type { Hl7Segment } from '../data/hl7';

/** Above this many characters fields are not set apart: tens of thousands of elements would slow the page. */
export const FIELD_DETAIL_LIMIT = 256 * 1024;

function Separator({ char }: { char: string }) {
  return (
    <Text span inherit c="dimmed">
      {char}
    </Text>
  );
}

function SegmentLine({ segment, separator, component, detailed }: { segment: Hl7Segment; separator: string; component: string; detailed: boolean }) {
  const header = segment.id === 'MSH' || segment.id === 'BHS' || segment.id === 'FHS';
  // A header's MSH-1 is the separator written once, between the id and MSH-2.
  const fields = header ? segment.fields.slice(1) : segment.fields;
  return (
    <span style={{ display: 'block' }} data-segment={segment.id}>
      <Text span inherit fw={700} c="teal">
        {segment.id}
      </Text>
      {fields.map((field) => (
        <Fragment key={field.number}>
          <Separator char={separator} />
          {!detailed ? (
            field.text
          ) : (
            <span title={`${segment.id}-${field.number}`}>
              {header && field.number === 2
                ? // The encoding characters, not separators.
                  field.text
                : field.text.split(component).map((part, j) => (
                    <Fragment key={j}>
                      {j > 0 && <Separator char={component} />}
                      {part}
                    </Fragment>
                  ))}
            </span>
          )}
        </Fragment>
      ))}
    </span>
  );
}

/** An HL7 v2 body laid out as segments (shown inside BodyView, which names the region). */
export function Hl7View({ body }: { body: string }) {
  const message = useMemo(() => readHl7(body), [body]);
  const [showAll, setShowAll] = useState(false);
  const shown = visibleSegments(message.segments, showAll);
  const hidden = message.segments.length - shown.length;
  const detailed = body.length <= FIELD_DETAIL_LIMIT;
  const count = message.segments.length;
  return (
    <>
      <Group gap="xs" mb={4}>
        {message.messageType !== undefined && (
          <Text size="sm" fw={600} ff="monospace">
            {message.messageType}
          </Text>
        )}
        {message.controlId !== undefined && (
          <Text size="sm" c="dimmed">
            control ID <Text span ff="monospace">{message.controlId}</Text>
          </Text>
        )}
        {message.ackCode !== undefined && (
          <Badge variant="light" color={/^.A$/.test(message.ackCode) ? 'teal' : /^.E$/.test(message.ackCode) ? 'yellow' : 'red'} style={{ textTransform: 'none' }}>
            MSA-1 {message.ackCode}
            {ACK_MEANING[message.ackCode] === undefined ? '' : `: ${ACK_MEANING[message.ackCode]}`}
          </Badge>
        )}
        {message.ackText !== undefined && <Text size="sm">{message.ackText}</Text>}
        <Text size="xs" c="dimmed">
          {count.toLocaleString()} {count === 1 ? 'segment' : 'segments'}: {segmentCounts(message.segments)}
        </Text>
      </Group>
      <Code block data-format="hl7" style={{ whiteSpace: 'pre', overflow: 'auto', maxHeight: 480 }}>
        {shown.map((segment, i) => (
          <SegmentLine key={i} segment={segment} separator={message.fieldSeparator} component={message.componentSeparator} detailed={detailed} />
        ))}
      </Code>
      {hidden > 0 && (
        <Group gap="xs" mt={4}>
          <Text size="xs" c="dimmed">
            The first {SEGMENT_LIMIT.toLocaleString()} of {count.toLocaleString()} segments are shown.
          </Text>
          <Button size="compact-xs" variant="light" onClick={() => setShowAll(true)}>
            Show all {count.toLocaleString()} segments
          </Button>
        </Group>
      )}
    </>
  );
}
