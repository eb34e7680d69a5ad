/** Routes of the About area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { AboutPage } from './AboutPage';

export const aboutRoutes: RouteObject[] = [{ path: 'about', element: <AboutPage /> }];
