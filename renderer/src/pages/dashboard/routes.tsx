/** Routes of the Dashboard area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { DashboardPage } from './DashboardPage';

export const dashboardRoutes: RouteObject[] = [{ index: true, element: <DashboardPage /> }];
