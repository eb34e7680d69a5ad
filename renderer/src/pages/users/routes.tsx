/** Routes of the Users area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { PageHeader } from '../../components/PageHeader';

function UsersPage() {
  return <PageHeader title="Users" />;
}

export const usersRoutes: RouteObject[] = [{ path: 'users', element: <UsersPage /> }];
