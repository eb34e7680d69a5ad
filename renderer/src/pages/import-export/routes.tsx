/** Routes of the Import/Export area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { ImportExportPage } from './ImportExportPage';

export const importExportRoutes: RouteObject[] = [{ path: 'import-export', element: <ImportExportPage /> }];
