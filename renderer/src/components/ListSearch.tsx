/** The search box above a list, with a spinner while the list loads and room for a note at the right. */
import type { ReactNode } from 'react';
import { Group, Loader, TextInput } from '@mantine/core';

export interface ListSearchProps {
  label: string;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
  loading: boolean;
  /** Names the spinner: "Loading clients". */
  loadingLabel: string;
  align?: 'center' | 'flex-end';
  children?: ReactNode;
}

export function ListSearch({ label, placeholder, value, onChange, loading, loadingLabel, align, children }: ListSearchProps) {
  return (
    <Group justify="space-between" align={align}>
      <TextInput label={label} placeholder={placeholder} value={value} onChange={(e) => onChange(e.currentTarget.value)} w={360} />
      {loading && <Loader size="sm" aria-label={loadingLabel} />}
      {children}
    </Group>
  );
}
