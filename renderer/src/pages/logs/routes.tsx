/** Routes of the Logs area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { LogsPage } from './LogsPage';

export const logsRoutes: RouteObject[] = [{ path: 'logs', element: <LogsPage /> }];
