/** Routes and navigation entry of the Alerts and messages area (paths relative to the console root). */
import type { Area } from '../../components/Layout';
import { NotificationsPage } from './NotificationsPage';

export const notificationsArea: Area = {
  nav: { to: '/notifications', label: 'Alerts and messages', adminOnly: true },
  routes: [{ path: 'notifications', element: <NotificationsPage /> }],
};
