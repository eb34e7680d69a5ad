/** Routes of the Channels area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { PageHeader } from '../../components/PageHeader';

function ChannelsPage() {
  return <PageHeader title="Channels" />;
}

export const channelsRoutes: RouteObject[] = [{ path: 'channels', element: <ChannelsPage /> }];
