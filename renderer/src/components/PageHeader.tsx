import type { ReactNode } from 'react';
import { Group, Title } from '@mantine/core';

/** The title of a page, with its actions on the right. */
export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Group justify="space-between" mb="md" wrap="nowrap">
      <Title order={1} size="h2">
        {title}
      </Title>
      <Group gap="xs">{children}</Group>
    </Group>
  );
}
