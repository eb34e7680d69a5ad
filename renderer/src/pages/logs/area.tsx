/** Routes and navigation entry of the Logs area (paths relative to the console root). */
import type { Area } from '../../components/Layout';
import { LogsPage } from './LogsPage';

export const logsArea: Area = {
  nav: { to: '/logs', label: 'Logs', adminOnly: true },
  routes: [{ path: 'logs', element: <LogsPage /> }],
};
