/** The audit log's filters, as OpenHIM's console offers them, in the shared filter panel. */
import type { ComponentProps } from 'react';
import { Text } from '@mantine/core';
import type { AuditCode, AuditFilterOptions } from '../../../../service/contracts/audits';
import { ChoiceFilter, DateFilter, FilterPanel, TextFilter, useFilterChange } from '../../components/FilterPanel';
import { codeOption } from './audit-view';
import { ACTIONS, EMPTY_AUDIT_FILTERS, OUTCOMES, auditDateOrderProblem, authorityProblem, patientIdProblem } from './filters';
import type { AuditListFilters } from './filters';

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

/** A choice that keeps a value from the address the list lacks, and can be typed in when the list is long. */
function AuditChoice(props: ComponentProps<typeof ChoiceFilter>) {
  return <ChoiceFilter {...props} searchable="long" keepUnknown alwaysSayNothingFound />;
}

const OUTCOME_OPTIONS = Object.entries(OUTCOMES).map(([value, label]) => ({ value, label: `${label} (${value})` }));
const ACTION_OPTIONS = Object.entries(ACTIONS).map(([value, label]) => ({ value, label: `${label} (${value})` }));

export interface AuditFiltersPanelProps {
  filters: AuditListFilters;
  options: AuditFilterOptions | null;
  onChange: (filters: AuditListFilters) => void;
}

export function AuditFiltersPanel({ filters, options, onChange }: AuditFiltersPanelProps) {
  const change = useFilterChange(filters, onChange);
  const sources = [...new Set(options?.auditSourceID ?? [])].sort().map((s) => ({ value: s, label: s }));
  const dateOrder = auditDateOrderProblem(filters);

  return (
    <FilterPanel
      dateProblem={dateOrder}
      onClear={() => onChange(EMPTY_AUDIT_FILTERS)}
      beside={
        <Text size="xs" c="dimmed">
          The patient ID matches objects whose ID is in the HL7 CX form <code>ID^^^authority&amp;authority ID&amp;type</code>.
        </Text>
      }
    >
      <DateFilter label="From" value={filters.from} onCommit={(from) => change({ from })} />
      <DateFilter label="To" value={filters.to} end onCommit={(to) => change({ to })} />
      <AuditChoice label="Event type" thing="event type" data={codeOptions(options?.eventType)} value={filters.eventType} onChange={(eventType) => change({ eventType })} />
      <AuditChoice label="Event" thing="event" data={codeOptions(options?.eventID)} value={filters.eventID} onChange={(eventID) => change({ eventID })} />
      <AuditChoice label="Outcome" thing="outcome" data={OUTCOME_OPTIONS} value={filters.outcome} onChange={(outcome) => change({ outcome })} />
      <AuditChoice label="Action" thing="action" data={ACTION_OPTIONS} value={filters.action} onChange={(action) => change({ action })} />
      <AuditChoice label="Audit source" thing="audit source" data={sources} value={filters.source} onChange={(source) => change({ source })} />
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
    </FilterPanel>
  );
}
