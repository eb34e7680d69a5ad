import type { ReactNode } from 'react';
import { Group, Title } from '@mantine/core';
import { usePageTitle } from './page-title';

/** The title of a page, with its actions on the right; the browser tab is titled after it too. */
export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  usePageTitle(title);
  return (
    // On a narrow screen the actions go under the title rather than off the side of the page.
    <Group justify="space-between" mb="md" gap="xs">
      <Title order={1} size="h2">
        {title}
      </Title>
      <Group gap="xs" wrap="wrap">
        {children}
      </Group>
    </Group>
  );
}
