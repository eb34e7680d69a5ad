/** Routes of the Channels area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { ChannelsListPage } from './ChannelsListPage';
import { ChannelEditorPage } from './ChannelEditorPage';
import { ChannelMetricsPage } from '../metrics/ChannelMetricsPage';

export const channelsRoutes: RouteObject[] = [
  { path: 'channels', element: <ChannelsListPage /> },
  { path: 'channels/new', element: <ChannelEditorPage /> },
  { path: 'channels/:id', element: <ChannelEditorPage /> },
  { path: 'channels/:id/metrics', element: <ChannelMetricsPage /> },
];
