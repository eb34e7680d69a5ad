/** Routes and navigation entry of the Roles area (paths relative to the console root). */
import type { Area } from '../../components/Layout';
import { RolesPage } from './RolesPage';

export const rolesArea: Area = {
  nav: { to: '/roles', label: 'Roles', adminOnly: true },
  routes: [{ path: 'roles', element: <RolesPage /> }],
};
