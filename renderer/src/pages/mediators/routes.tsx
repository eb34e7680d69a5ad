/** Routes of the Mediators area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { PageHeader } from '../../components/PageHeader';

function MediatorsPage() {
  return <PageHeader title="Mediators" />;
}

export const mediatorsRoutes: RouteObject[] = [{ path: 'mediators', element: <MediatorsPage /> }];
