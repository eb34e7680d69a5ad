/** Routes and navigation entry of the Mediators area (paths relative to the console root). */
import type { Area } from '../../components/Layout';
import { MediatorDetailPage } from './MediatorDetailPage';
import { MediatorsPage } from './MediatorsPage';

export const mediatorsArea: Area = {
  nav: { to: '/mediators', label: 'Mediators', adminOnly: true },
  routes: [
    { path: 'mediators', element: <MediatorsPage /> },
    { path: 'mediators/:urn', element: <MediatorDetailPage /> },
  ],
};
