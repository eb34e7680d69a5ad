/** Routes of the Mediators area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { MediatorDetailPage } from './MediatorDetailPage';
import { MediatorsPage } from './MediatorsPage';

export const mediatorsRoutes: RouteObject[] = [
  { path: 'mediators', element: <MediatorsPage /> },
  { path: 'mediators/:urn', element: <MediatorDetailPage /> },
];
