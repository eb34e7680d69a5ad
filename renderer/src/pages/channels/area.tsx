/** Routes and navigation entry of the Channels area (paths relative to the console root). */
import type { Area } from '../../components/Layout';
import { ChannelsListPage } from './ChannelsListPage';
import { ChannelEditorPage } from './ChannelEditorPage';
import { ChannelMetricsPage } from './ChannelMetricsPage';

export const channelsArea: Area = {
  nav: { to: '/channels', label: 'Channels' },
  routes: [
    { path: 'channels', element: <ChannelsListPage /> },
    { path: 'channels/new', element: <ChannelEditorPage /> },
    { path: 'channels/:id', element: <ChannelEditorPage /> },
    { path: 'channels/:id/metrics', element: <ChannelMetricsPage /> },
  ],
};
