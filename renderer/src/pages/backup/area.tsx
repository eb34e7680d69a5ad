/** Routes and navigation entry of the Backup area (paths relative to the console root). */
import type { Area } from '../../components/Layout';
import { BackupPage } from './BackupPage';

export const backupArea: Area = {
  nav: { to: '/backup', label: 'Backup', adminOnly: true },
  routes: [{ path: 'backup', element: <BackupPage /> }],
};
