/** Routes and navigation entry of the Certificates area (paths relative to the console root). */
import type { Area } from '../../components/Layout';
import { CertificatesPage } from './CertificatesPage';

export const certificatesArea: Area = {
  nav: { to: '/certificates', label: 'Certificates', adminOnly: true },
  routes: [{ path: 'certificates', element: <CertificatesPage /> }],
};
