/** Routes and navigation entry of the Audit log area (paths relative to the console root). */
import type { Area } from '../../components/Layout';
import { AuditDetailPage } from './AuditDetailPage';
import { AuditsPage } from './AuditsPage';

export const auditsArea: Area = {
  nav: { to: '/audits', label: 'Audit log', adminOnly: true },
  routes: [
    { path: 'audits', element: <AuditsPage /> },
    { path: 'audits/:id', element: <AuditDetailPage /> },
  ],
};
