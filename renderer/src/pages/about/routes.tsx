/** Routes of the About area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { PageHeader } from '../../components/PageHeader';

function AboutPage() {
  return <PageHeader title="About" />;
}

export const aboutRoutes: RouteObject[] = [{ path: 'about', element: <AboutPage /> }];
