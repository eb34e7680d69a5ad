/** A summary as label/value rows: a vertical table, labels in a column of their own. */
import type { ReactNode } from 'react';
import { Table } from '@mantine/core';

/** One row: the label and what it shows. Labels must be unique within a list. */
export type FieldRow = [label: string, value: ReactNode];

export interface FieldListProps {
  rows: FieldRow[];
  /** Width of the label column (pixels or a percentage). */
  labelWidth?: number | string;
  withTableBorder?: boolean;
  'aria-label'?: string;
  'aria-labelledby'?: string;
}

export function FieldList({ rows, labelWidth = 180, withTableBorder, ...names }: FieldListProps) {
  return (
    <Table variant="vertical" layout="fixed" withTableBorder={withTableBorder} {...names}>
      <Table.Tbody>
        {rows.map(([label, value]) => (
          <Table.Tr key={label}>
            <Table.Th w={labelWidth}>{label}</Table.Th>
            <Table.Td style={{ wordBreak: 'break-word' }}>{value}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
