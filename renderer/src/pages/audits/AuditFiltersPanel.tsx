/**
 * The audit log's filters, as OpenHIM's console offers them. Choices apply at once; typed text applies after a short
 * pause, on Enter, or when leaving the field.
 */
import { useEffect, useState } from 'react';
import { Button, Group, Paper, Select, SimpleGrid, Text, TextInput } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import type { AuditCode, AuditFilterOptions } from '../../../../service/contracts/audits';
import { fromLocalInput, toLocalInput } from '../../data/transaction-filters';
import { codeOption } from './audit-view';
import { ACTIONS, EMPTY_AUDIT_FILTERS, OUTCOMES, auditDateOrderProblem, authorityProblem, patientIdProblem } from './filters';
import type { AuditListFilters } from './filters';

interface TextFilterProps {
  label: string;
  placeholder?: string;
  description?: string;
  value: string;
  problem?: (value: string) => string | null;
  onCommit: (value: string) => void;
}

/** A text filter with its own draft: the list follows once the text is valid and typing has paused. */
function TextFilter({ label, placeholder, description, value, problem = () => null, onCommit }: TextFilterProps) {
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  const commit = useDebouncedCallback((text: string) => {
    if (problem(text) === null && text !== value) onCommit(text);
  }, 500);
  return (
    <TextInput
      label={label}
      placeholder={placeholder}
      description={description}
      value={draft}
      error={problem(draft)}
      onChange={(e) => {
        setDraft(e.currentTarget.value);
        commit(e.currentTarget.value);
      }}
      onKeyDown={(e) => {
        if (e.key === 'Enter') commit.flush();
      }}
      onBlur={() => commit.flush()}
    />
  );
}

interface ChoiceFilterProps {
  label: string;
  /** What is chosen, in lower case: "event" gives "Any event" and "Clear event". */
  thing: string;
  data: { value: string; label: string }[];
  value: string | null;
  onChange: (value: string | null) => void;
}

/** One choice or none ("Any …"), with a named clear button. A value from the address that the list lacks is kept. */
function ChoiceFilter({ label, thing, data, value, onChange }: ChoiceFilterProps) {
  const options = value !== null && !data.some((d) => d.value === value) ? [...data, { value, label: value }] : data;
  return (
    <Select
      label={label}
      placeholder={`Any ${thing}`}
      data={options}
      value={value}
      onChange={onChange}
      searchable={options.length > 8}
      clearable
      clearButtonProps={{ 'aria-label': `Clear ${thing}` }}
      nothingFoundMessage={`No ${thing} by that name`}
    />
  );
}

function DateFilter({ label, value, end = false, onCommit }: { label: string; value: string | null; end?: boolean; onCommit: (iso: string | null) => void }) {
  return (
    <TextInput
      type="datetime-local"
      label={label}
      value={toLocalInput(value)}
      onChange={(e) => {
        const text = e.currentTarget.value;
        if (text === '' || fromLocalInput(text, end) !== null) onCommit(fromLocalInput(text, end));
      }}
    />
  );
}

/** Codes as select options, one per code (the filter matches on the code alone). */
function codeOptions(codes: readonly AuditCode[] | undefined): { value: string; label: string }[] {
  const seen = new Set<string>();
  const out: { value: string; label: string }[] = [];
  for (const code of codes ?? []) {
    if (code.code === '' || seen.has(code.code)) continue;
    seen.add(code.code);
    out.push(codeOption(code));
  }
  return out.sort((a, b) => a.label.localeCompare(b.label));
}

const OUTCOME_OPTIONS = Object.entries(OUTCOMES).map(([value, label]) => ({ value, label: `${label} (${value})` }));
const ACTION_OPTIONS = Object.entries(ACTIONS).map(([value, label]) => ({ value, label: `${label} (${value})` }));

export interface AuditFiltersPanelProps {
  filters: AuditListFilters;
  options: AuditFilterOptions | null;
  onChange: (filters: AuditListFilters) => void;
}

export function AuditFiltersPanel({ filters, options, onChange }: AuditFiltersPanelProps) {
  const change = (patch: Partial<AuditListFilters>) => onChange({ ...filters, ...patch });
  const sources = [...new Set(options?.auditSourceID ?? [])].sort().map((s) => ({ value: s, label: s }));
  const dateOrder = auditDateOrderProblem(filters);

  return (
    <Paper withBorder p="sm" mb="md" component="form" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }} spacing="sm" verticalSpacing="xs">
        <DateFilter label="From" value={filters.from} onCommit={(from) => change({ from })} />
        <DateFilter label="To" value={filters.to} end onCommit={(to) => change({ to })} />
        <ChoiceFilter label="Event type" thing="event type" data={codeOptions(options?.eventType)} value={filters.eventType} onChange={(eventType) => change({ eventType })} />
        <ChoiceFilter label="Event" thing="event" data={codeOptions(options?.eventID)} value={filters.eventID} onChange={(eventID) => change({ eventID })} />
        <ChoiceFilter label="Outcome" thing="outcome" data={OUTCOME_OPTIONS} value={filters.outcome} onChange={(outcome) => change({ outcome })} />
        <ChoiceFilter label="Action" thing="action" data={ACTION_OPTIONS} value={filters.action} onChange={(action) => change({ action })} />
        <ChoiceFilter label="Audit source" thing="audit source" data={sources} value={filters.source} onChange={(source) => change({ source })} />
        <TextFilter label="User ID" placeholder="Any user" description="A participant's user ID, exactly" value={filters.user} onCommit={(user) => change({ user })} />
        <TextFilter
          label="Patient ID"
          placeholder="e.g. 4567-89"
          description="Letters, digits, _ and -"
          value={filters.patient}
          problem={patientIdProblem}
          onCommit={(patient) => change({ patient })}
        />
        <TextFilter
          label="Assigning authority"
          placeholder="Any authority"
          description="Its namespace, e.g. Clinic"
          value={filters.authority}
          problem={authorityProblem}
          onCommit={(authority) => change({ authority })}
        />
        <TextFilter
          label="Authority ID"
          placeholder="Any ID"
          description="Its universal ID, e.g. an OID"
          value={filters.authorityId}
          problem={authorityProblem}
          onCommit={(authorityId) => change({ authorityId })}
        />
      </SimpleGrid>
      {dateOrder !== null && (
        <Text c="red" size="sm" mt={4} role="alert">
          {dateOrder}
        </Text>
      )}
      <Group mt="xs" justify="space-between">
        <Text size="xs" c="dimmed">
          The patient ID matches objects whose ID is in the HL7 CX form <code>ID^^^authority&amp;authority ID&amp;type</code>.
        </Text>
        <Button variant="default" onClick={() => onChange(EMPTY_AUDIT_FILTERS)}>
          Clear filters
        </Button>
      </Group>
    </Paper>
  );
}
