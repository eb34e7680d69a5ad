/**
 * An HL7 v2 message as segments: one line per segment, the segment id in bold, each field named on hover (`PID-5
 * Patient Name`, the names from the HL7 dictionary package, data/hl7-field-names.ts) and its components set apart,
 * with a summary of what the message is (type, control id, or an ACK's outcome) and, on request, a table of its
 * filled fields by name. Long messages draw their first segments and offer the rest, so the page stays usable for a
 * message of thousands.
 */
import { Fragment, useEffect, useMemo, useState } from 'react';
import { Badge, Button, Code, Group, Table, Text } from '@mantine/core';
import { ACK_MEANING, SEGMENT_LIMIT, readHl7, segmentCounts, visibleSegments } from '../data/hl7';
import type { Hl7Segment } from '../data/hl7';
import { loadFieldNamer } from '../data/hl7-field-names';
import type { FieldNamer } from '../data/hl7-field-names';
import { markedWords, repetitionMatches, repetitionSeparator } from '../data/search-keys';
import type { TextPart } from '../data/search-keys';
import type { SearchHighlight } from './search-highlight';
import { useSearchHighlight, useSearchWords } from './search-highlight';

/** Above this many characters fields are not set apart: tens of thousands of elements would slow the page. */
export const FIELD_DETAIL_LIMIT = 256 * 1024;

function Separator({ char }: { char: string }) {
  return (
    <Text span inherit c="dimmed">
      {char}
    </Text>
  );
}

/** `PID-5 Patient Name`, or `PID-5` while the names load or when the dictionary has none. */
function fieldTitle(segment: string, field: number, names: FieldNamer | null): string {
  const name = names?.(segment, field);
  return name === undefined ? `${segment}-${field}` : `${segment}-${field} ${name}`;
}

function Components({ text, component }: { text: string; component: string }) {
  return (
    <>
      {text.split(component).map((part, j) => (
        <Fragment key={j}>
          {j > 0 && <Separator char={component} />}
          {part}
        </Fragment>
      ))}
    </>
  );
}

/** A field holding the searched key: its repetitions, the one whose first component is the value marked. */
function MarkedField({ text, component, repetition, value, title }: { text: string; component: string; repetition: string; value: string; title: string }) {
  return (
    <span title={title}>
      {text.split(repetition).map((rep, i) => (
        <Fragment key={i}>
          {i > 0 && <Separator char={repetition} />}
          {repetitionMatches(rep, component, value) ? (
            <mark data-search-match aria-label={`${title}, the value searched for: ${rep}`}>
              <Components text={rep} component={component} />
            </mark>
          ) : (
            <Components text={rep} component={component} />
          )}
        </Fragment>
      ))}
    </span>
  );
}

/** A field holding words of the text search, each marked (the components are not set apart in it). */
function WordsField({ parts, title }: { parts: TextPart[]; title: string }) {
  return (
    <span title={title}>
      {parts.map((part, i) =>
        part.marked ? (
          <mark key={i} data-search-word>
            {part.text}
          </mark>
        ) : (
          part.text
        ),
      )}
    </span>
  );
}

/** Whether a field may hold the searched key: the field it was found in, or (without one) any field holding the value. */
function highlights(highlight: SearchHighlight | null, position: string, text: string): boolean {
  if (highlight === null) return false;
  if (highlight.field !== undefined) return highlight.field === position;
  return text.toLowerCase().includes(highlight.value.trim().toLowerCase());
}

function SegmentLine({
  segment,
  separator,
  component,
  repetition,
  detailed,
  names,
  highlight,
  words,
}: {
  segment: Hl7Segment;
  separator: string;
  component: string;
  repetition: string;
  detailed: boolean;
  names: FieldNamer | null;
  highlight: SearchHighlight | null;
  words: readonly string[];
}) {
  const header = segment.id === 'MSH' || segment.id === 'BHS' || segment.id === 'FHS';
  // A header's MSH-1 is the separator written once, between the id and MSH-2.
  const fields = header ? segment.fields.slice(1) : segment.fields;
  return (
    <span style={{ display: 'block' }} data-segment={segment.id}>
      <Text span inherit fw={700} c="teal">
        {segment.id}
      </Text>
      {fields.map((field) => {
        const content = !(header && field.number <= 2);
        const wordParts = content && words.length > 0 ? markedWords(field.text, words) : null;
        return (
          <Fragment key={field.number}>
            <Separator char={separator} />
            {content && highlights(highlight, `${segment.id}-${field.number}`, field.text) && highlight !== null ? (
              <MarkedField text={field.text} component={component} repetition={repetition} value={highlight.value} title={fieldTitle(segment.id, field.number, names)} />
            ) : wordParts !== null && wordParts.some((part) => part.marked) ? (
              <WordsField parts={wordParts} title={fieldTitle(segment.id, field.number, names)} />
            ) : !detailed ? (
              field.text
            ) : (
              <span title={fieldTitle(segment.id, field.number, names)}>
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
        );
      })}
    </span>
  );
}

/** The filled fields of the segments shown, each by its position and name: what a support person reads a message by. */
function FieldTable({ segments, names }: { segments: Hl7Segment[]; names: FieldNamer | null }) {
  const rows = segments.flatMap((segment, i) =>
    segment.fields
      // A header's MSH-1 and MSH-2 are its separators, not content.
      .filter((field) => field.text !== '' && !((segment.id === 'MSH' || segment.id === 'BHS' || segment.id === 'FHS') && field.number <= 2))
      .map((field) => ({ key: `${i}-${field.number}`, position: `${segment.id}-${field.number}`, name: names?.(segment.id, field.number), text: field.text })),
  );
  return (
    <Table.ScrollContainer minWidth={360} type="native" mt={4}>
      <Table striped withTableBorder verticalSpacing={2} aria-label="HL7 fields by name">
        <Table.Thead>
          <Table.Tr>
            <Table.Th style={{ width: 90 }}>Field</Table.Th>
            <Table.Th>Name</Table.Th>
            <Table.Th>Value</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={row.key}>
              <Table.Td ff="monospace" fz="sm">
                {row.position}
              </Table.Td>
              <Table.Td fz="sm">{row.name ?? '–'}</Table.Td>
              <Table.Td ff="monospace" fz="sm" style={{ overflowWrap: 'anywhere' }}>
                {row.text}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/**
 * An HL7 v2 body laid out as segments (shown inside BodyView, which names the region). `fieldNames` is for tests that
 * draw it without a browser; the console loads the dictionary itself.
 */
export function Hl7View({ body, fieldNames }: { body: string; fieldNames?: FieldNamer }) {
  const message = useMemo(() => readHl7(body), [body]);
  const highlight = useSearchHighlight();
  const words = useSearchWords();
  const [loaded, setLoaded] = useState<FieldNamer | null>(null);
  const [showFields, setShowFields] = useState(false);
  useEffect(() => {
    if (fieldNames !== undefined) return undefined;
    let current = true;
    loadFieldNamer(message.version).then(
      (namer) => {
        if (current) setLoaded(() => namer);
      },
      // Without the dictionary the fields keep their positions (`PID-5`); nothing else depends on it.
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [fieldNames, message.version]);
  const names = fieldNames ?? loaded;
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
        {detailed && (
          <Button size="compact-xs" variant="light" aria-expanded={showFields} onClick={() => setShowFields((shown) => !shown)}>
            {showFields ? 'Hide field names' : 'Show field names'}
          </Button>
        )}
      </Group>
      <Code block data-format="hl7" style={{ whiteSpace: 'pre', overflow: 'auto', maxHeight: 480 }}>
        {shown.map((segment, i) => (
          <SegmentLine
            key={i}
            segment={segment}
            separator={message.fieldSeparator}
            component={message.componentSeparator}
            repetition={repetitionSeparator(message)}
            detailed={detailed}
            names={names}
            highlight={highlight}
            words={words}
          />
        ))}
      </Code>
      {showFields && detailed && <FieldTable segments={shown} names={names} />}
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
