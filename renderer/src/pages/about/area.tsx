/** Routes and navigation entry of the About area (paths relative to the console root). */
import type { Area } from '../../components/Layout';
import { AboutPage } from './AboutPage';

export const aboutArea: Area = {
  nav: { to: '/about', label: 'About' },
  routes: [{ path: 'about', element: <AboutPage /> }],
};
