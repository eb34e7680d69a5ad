/** The transaction list's filters, in the shared filter panel. */
import { useState } from 'react';
import { MultiSelect, TagsInput } from '@mantine/core';
import { ChoiceFilter, DateFilter, FilterPanel, TextFilter } from '../../components/FilterPanel';
import type { ChannelName, ClientName } from '../../api/transactions';
import { EMPTY_FILTERS, dateOrderProblem, pathPatternProblem, responseStatusProblem, splitProperty } from '../../data/transaction-filters';
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

export function FiltersPanel({ filters, channels, clients, showClients, onChange }: FiltersPanelProps) {
  const change = (patch: Partial<ListFilters>) => onChange({ ...filters, ...patch });
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
          description="As shown in the Client column"
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
      <DateFilter label="From" value={filters.from} onCommit={(from) => change({ from })} />
      <DateFilter label="To" value={filters.to} end onCommit={(to) => change({ to })} />
    </FilterPanel>
  );
}
