/** Routes of the Clients area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { ClientsPage } from './ClientsPage';

export const clientsRoutes: RouteObject[] = [{ path: 'clients', element: <ClientsPage /> }];
