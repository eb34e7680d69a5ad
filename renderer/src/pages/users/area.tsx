/**
 * Routes and navigation entry of the Users area (paths relative to the console root). `account` is the signed-in
 * user's own account, open to everyone; `users` shows the same forms to someone who is not an admin.
 */
import type { Area } from '../../components/Layout';
import { UsersPage } from './UsersPage';
import { MyAccountPage } from './MyAccountPage';

export const usersArea: Area = {
  nav: { to: '/users', label: 'Users', adminOnly: true },
  routes: [
    { path: 'users', element: <UsersPage /> },
    { path: 'account', element: <MyAccountPage /> },
  ],
};
