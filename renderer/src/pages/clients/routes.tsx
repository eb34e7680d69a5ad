/** Routes of the Clients area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { PageHeader } from '../../components/PageHeader';

function ClientsPage() {
  return <PageHeader title="Clients" />;
}

export const clientsRoutes: RouteObject[] = [{ path: 'clients', element: <ClientsPage /> }];
