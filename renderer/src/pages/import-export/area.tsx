/** Routes and navigation entry of the Import/Export area (paths relative to the console root). */
import type { Area } from '../../components/Layout';
import { ImportExportPage } from './ImportExportPage';

export const importExportArea: Area = {
  nav: { to: '/import-export', label: 'Import/Export', adminOnly: true },
  routes: [{ path: 'import-export', element: <ImportExportPage /> }],
};
