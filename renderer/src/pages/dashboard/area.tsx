/** Routes and navigation entry of the Dashboard area (paths relative to the console root). */
import type { Area } from '../../components/Layout';
import { DashboardPage } from './DashboardPage';

export const dashboardArea: Area = {
  nav: { to: '/', label: 'Dashboard' },
  routes: [{ index: true, element: <DashboardPage /> }],
};
