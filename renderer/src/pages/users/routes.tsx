/**
 * Routes of the Users area (paths relative to the console root). `account` is the signed-in user's own account,
 * open to everyone; `users` shows the same forms to someone who is not an admin.
 */
import type { RouteObject } from 'react-router';
import { UsersPage } from './UsersPage';
import { MyAccountPage } from './MyAccountPage';

export const usersRoutes: RouteObject[] = [
  { path: 'users', element: <UsersPage /> },
  { path: 'account', element: <MyAccountPage /> },
];
