/** Routes of the Audit log area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { AuditDetailPage } from './AuditDetailPage';
import { AuditsPage } from './AuditsPage';

export const auditsRoutes: RouteObject[] = [
  { path: 'audits', element: <AuditsPage /> },
  { path: 'audits/:id', element: <AuditDetailPage /> },
];
