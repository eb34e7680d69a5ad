/** Routes of the Roles area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { PageHeader } from '../../components/PageHeader';

function RolesPage() {
  return <PageHeader title="Roles" />;
}

export const rolesRoutes: RouteObject[] = [{ path: 'roles', element: <RolesPage /> }];
