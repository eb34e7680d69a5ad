/** Routes of the Alerts and messages area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { NotificationsPage } from './NotificationsPage';

export const notificationsRoutes: RouteObject[] = [{ path: 'notifications', element: <NotificationsPage /> }];
