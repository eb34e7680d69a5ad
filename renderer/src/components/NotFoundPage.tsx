import { Anchor, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { PageHeader } from './PageHeader';

export function NotFoundPage() {
  return (
    <Stack>
      <PageHeader title="Page not found" />
      <Text>There is no console page at this address.</Text>
      <Anchor component={Link} to="/">
        Go to the dashboard
      </Anchor>
    </Stack>
  );
}
