/** The transaction list's filters, in the shared filter panel. */
import { useState } from 'react';
import { Button, Group, MultiSelect, TagsInput, Text } from '@mantine/core';
import { ChoiceFilter, DateFilter, FilterPanel, TextFilter, useFilterChange } from '../../components/FilterPanel';
import type { ChannelName, ClientName } from '../../api/transactions';
import { EMPTY_FILTERS, QUICK_RANGES, activeQuickRange, dateOrderProblem, pathPatternProblem, quickRange, responseStatusProblem, splitProperty } from '../../data/transaction-filters';
import type { ListFilters } from '../../data/transaction-filters';
import { STATUSES, isStatus } from '../../data/status';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

export interface FiltersPanelProps {
  filters: ListFilters;
  channels: ChannelName[];
  clients: ClientName[];
  /** Clients can be listed by admins only; others get no client filter. */
  showClients: boolean;
  onChange: (filters: ListFilters) => void;
}

/**
 * Last hour, today, yesterday, last 7 days: each sets From and To (in the browser's time zone), which then show the
 * range chosen and can be changed further; the range the dates are is marked pressed.
 */
function QuickRanges({ filters, onChange }: { filters: ListFilters; onChange: (range: Pick<ListFilters, 'from' | 'to'>) => void }) {
  const active = activeQuickRange(filters, new Date());
  return (
    <div role="group" aria-labelledby="quick-range-label">
      <Text id="quick-range-label" size="sm" fw={500} mb={4}>
        Time range
      </Text>
      <Group gap={6}>
        {QUICK_RANGES.map(({ key, label }) => (
          <Button key={key} size="compact-sm" variant={active === key ? 'filled' : 'default'} aria-pressed={active === key} onClick={() => onChange(quickRange(key, new Date()))}>
            {label}
          </Button>
        ))}
      </Group>
    </div>
  );
}

export function FiltersPanel({ filters, channels, clients, showClients, onChange }: FiltersPanelProps) {
  const change = useFilterChange(filters, onChange);
  const channelOptions = channels.map((c) => ({ value: c._id, label: c.name }));
  const clientOptions = clients.map((c) => ({ value: c._id, label: c.name === '' ? c.clientID : `${c.name} (${c.clientID})` }));
  const [propertyError, setPropertyError] = useState<string | null>(null);
  const dateOrder = dateOrderProblem(filters);

  return (
    <FilterPanel
      dateProblem={dateOrder}
      onClear={() => onChange(EMPTY_FILTERS)}
      besideIsField
      beside={
        <TagsInput
          style={{ flex: 1 }}
          label="Properties"
          description="name=value; press Enter after each"
          placeholder={filters.properties.length === 0 ? 'e.g. patient=123' : undefined}
          value={filters.properties}
          error={propertyError}
          onChange={(values) => {
            const bad = values.find((v) => splitProperty(v) === null);
            setPropertyError(bad === undefined ? null : `"${bad}" is not name=value`);
            change({ properties: values.filter((v) => splitProperty(v) !== null) });
          }}
          clearable
          clearButtonProps={{ 'aria-label': 'Clear properties' }}
        />
      }
    >
      <MultiSelect
        label="Status"
        placeholder={filters.status.length === 0 ? 'Any status' : undefined}
        data={[...STATUSES]}
        value={filters.status}
        onChange={(values) => change({ status: values.filter(isStatus) })}
        clearable
        clearButtonProps={{ 'aria-label': 'Clear status' }}
      />
      <ChoiceFilter label="Channel" thing="channel" data={channelOptions} value={filters.channel} onChange={(channel) => change({ channel })} searchable keepUnknown />
      {showClients ? (
        <ChoiceFilter label="Client" thing="client" data={clientOptions} value={filters.client} onChange={(client) => change({ client })} searchable keepUnknown />
      ) : (
        <TextFilter
          label="Client"
          placeholder="Any client"
          description="A client's ID, as on a transaction's page"
          value={filters.client ?? ''}
          problem={(v) => (v === '' || /^[A-Za-z0-9_-]{1,64}$/.test(v) ? null : 'Letters, digits, - and _ only')}
          onCommit={(v) => change({ client: v === '' ? null : v })}
        />
      )}
      <ChoiceFilter label="Method" thing="method" data={METHODS} value={filters.method} onChange={(method) => change({ method })} />
      <TextFilter label="Path" placeholder="e.g. ^/lab/" description="A regular expression" value={filters.path} problem={pathPatternProblem} onCommit={(path) => change({ path })} />
      <TextFilter
        label="Response status"
        placeholder="e.g. 404 or 5xx"
        description="A code or a class"
        value={filters.response}
        problem={responseStatusProblem}
        onCommit={(response) => change({ response })}
      />
      <QuickRanges filters={filters} onChange={(range) => change(range)} />
      <DateFilter label="From" value={filters.from} onCommit={(from) => change({ from })} />
      <DateFilter label="To" value={filters.to} end onCommit={(to) => change({ to })} />
    </FilterPanel>
  );
}
