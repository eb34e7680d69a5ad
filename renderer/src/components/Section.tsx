/** A bordered part of a page, named by its heading (a region for assistive technology). */
import type { ReactNode } from 'react';
import { Paper, Title } from '@mantine/core';

/** The heading's id for a section title, so a table inside can be named by it too. */
export function sectionId(title: string, prefix = 'section'): string {
  return `${prefix}-${title.toLowerCase().replace(/\W+/g, '-')}`;
}

export function Section({ title, id = sectionId(title), children }: { title: string; id?: string; children: ReactNode }) {
  return (
    <Paper withBorder p="md" component="section" aria-labelledby={id}>
      <Title order={2} size="h4" mb="sm" id={id}>
        {title}
      </Title>
      {children}
    </Paper>
  );
}
