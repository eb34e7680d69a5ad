/** Routes of the Certificates area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { CertificatesPage } from './CertificatesPage';

export const certificatesRoutes: RouteObject[] = [{ path: 'certificates', element: <CertificatesPage /> }];
