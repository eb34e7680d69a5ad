/** Routes of the Dashboard area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { PageHeader } from '../../components/PageHeader';

function DashboardPage() {
  return <PageHeader title="Dashboard" />;
}

export const dashboardRoutes: RouteObject[] = [{ index: true, element: <DashboardPage /> }];
