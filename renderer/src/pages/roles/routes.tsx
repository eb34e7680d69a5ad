/** Routes of the Roles area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { RolesPage } from './RolesPage';

export const rolesRoutes: RouteObject[] = [{ path: 'roles', element: <RolesPage /> }];
