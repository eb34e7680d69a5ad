/** Routes of the Backup area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { BackupPage } from './BackupPage';

export const backupRoutes: RouteObject[] = [{ path: 'backup', element: <BackupPage /> }];
