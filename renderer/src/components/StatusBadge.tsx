/** A transaction status as a coloured badge (its words are always shown, so colour is never the only cue). */
import { Badge } from '@mantine/core';
import { STATUS_COLOR, isStatus } from '../data/status';

export function StatusBadge({ status }: { status: string }) {
  const color = isStatus(status) ? STATUS_COLOR[status] : 'gray';
  return (
    <Badge color={color} variant="light" radius="sm" style={{ textTransform: 'none', flexShrink: 0 }}>
      {status}
    </Badge>
  );
}
