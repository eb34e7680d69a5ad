/** Every page of the console, under the shared layout. Each area owns its routes in pages/<area>/routes.tsx. */
import type { RouteObject } from 'react-router';
import { Layout } from './components/Layout';
import { NotFoundPage } from './components/NotFoundPage';
import { dashboardRoutes } from './pages/dashboard/routes';
import { transactionsRoutes } from './pages/transactions/routes';
import { channelsRoutes } from './pages/channels/routes';
import { clientsRoutes } from './pages/clients/routes';
import { rolesRoutes } from './pages/roles/routes';
import { usersRoutes } from './pages/users/routes';
import { contactsRoutes } from './pages/contacts/routes';
import { notificationsRoutes } from './pages/notifications/routes';
import { mediatorsRoutes } from './pages/mediators/routes';
import { tasksRoutes } from './pages/tasks/routes';
import { auditsRoutes } from './pages/audits/routes';
import { logsRoutes } from './pages/logs/routes';
import { aboutRoutes } from './pages/about/routes';
import { importExportRoutes } from './pages/import-export/routes';
import { backupRoutes } from './pages/backup/routes';
import { certificatesRoutes } from './pages/certificates/routes';

export const appRoutes: RouteObject[] = [
  {
    path: '/',
    element: <Layout />,
    children: [
      ...dashboardRoutes,
      ...transactionsRoutes,
      ...channelsRoutes,
      ...clientsRoutes,
      ...rolesRoutes,
      ...usersRoutes,
      ...contactsRoutes,
      ...notificationsRoutes,
      ...mediatorsRoutes,
      ...tasksRoutes,
      ...auditsRoutes,
      ...logsRoutes,
      ...importExportRoutes,
      ...backupRoutes,
      ...aboutRoutes,
      ...certificatesRoutes,
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];
