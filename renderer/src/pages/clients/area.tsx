/** Routes and navigation entry of the Clients area (paths relative to the console root). */
import type { Area } from '../../components/Layout';
import { ClientsPage } from './ClientsPage';

export const clientsArea: Area = {
  nav: { to: '/clients', label: 'Clients', adminOnly: true },
  routes: [{ path: 'clients', element: <ClientsPage /> }],
};
