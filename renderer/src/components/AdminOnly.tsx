/** A page for admins only: anyone else gets its title and why it is not shown (the API would refuse them anyway). */
import type { ComponentType, ReactNode } from 'react';
import { Alert, Stack } from '@mantine/core';
import { isAdmin, useSession } from '../stores/session';
import { PageHeader } from './PageHeader';

function AdminOnly({ title, refusal, children }: { title: string; refusal: string; children: ReactNode }) {
  const admin = isAdmin(useSession((s) => s.user));
  if (admin) return <>{children}</>;
  return (
    <Stack>
      <PageHeader title={title} />
      <Alert color="gray">{refusal}</Alert>
    </Stack>
  );
}

/** The page component of an admin-only page: `Page` for admins, the refusal for anyone else. */
export function adminOnly(title: string, refusal: string, Page: ComponentType): ComponentType {
  return function AdminOnlyPage() {
    return (
      <AdminOnly title={title} refusal={refusal}>
        <Page />
      </AdminOnly>
    );
  };
}
