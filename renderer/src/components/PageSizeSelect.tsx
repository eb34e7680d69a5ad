/** How many rows a server-paged list (transactions, the audit log) shows at a time. */
import { Select } from '@mantine/core';

export function PageSizeSelect({ sizes, value, onChange }: { sizes: readonly number[]; value: number; onChange: (size: number) => void }) {
  return (
    <Select
      label="Rows per page"
      data={sizes.map(String)}
      value={String(value)}
      onChange={(v) => onChange(Number(v ?? value))}
      allowDeselect={false}
      w={130}
      size="xs"
    />
  );
}
