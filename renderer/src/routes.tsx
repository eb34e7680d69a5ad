/**
 * Every page of the console, under the shared layout. Each area declares its routes and its navigation entry together
 * in pages/<area>/area.tsx; this list puts the areas in the navigation's order.
 */
import type { RouteObject } from 'react-router';
import { Layout } from './components/Layout';
import type { Area } from './components/Layout';
import { NotFoundPage } from './components/NotFoundPage';
import { dashboardArea } from './pages/dashboard/area';
import { transactionsArea } from './pages/transactions/area';
import { refusalsArea } from './pages/refusals/area';
import { channelsArea } from './pages/channels/area';
import { clientsArea } from './pages/clients/area';
import { rolesArea } from './pages/roles/area';
import { usersArea } from './pages/users/area';
import { contactsArea } from './pages/contacts/area';
import { notificationsArea } from './pages/notifications/area';
import { mediatorsArea } from './pages/mediators/area';
import { tasksArea } from './pages/tasks/area';
import { auditsArea } from './pages/audits/area';
import { logsArea } from './pages/logs/area';
import { importExportArea } from './pages/import-export/area';
import { backupArea } from './pages/backup/area';
import { certificatesArea } from './pages/certificates/area';
import { settingsArea } from './pages/settings/area';
import { aboutArea } from './pages/about/area';

const AREAS: Area[] = [
  dashboardArea,
  transactionsArea,
  refusalsArea,
  channelsArea,
  clientsArea,
  rolesArea,
  usersArea,
  contactsArea,
  notificationsArea,
  mediatorsArea,
  tasksArea,
  auditsArea,
  logsArea,
  importExportArea,
  backupArea,
  certificatesArea,
  settingsArea,
  aboutArea,
];

export const appRoutes: RouteObject[] = [
  {
    path: '/',
    element: <Layout nav={AREAS.map((area) => area.nav)} />,
    children: [...AREAS.flatMap((area) => area.routes), { path: '*', element: <NotFoundPage /> }],
  },
];
