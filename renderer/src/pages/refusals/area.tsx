/** Routes and navigation entry of the Refused area, beside Transactions (paths relative to the console root). */
import type { Area } from '../../components/Layout';
import { RefusalsPage } from './RefusalsPage';

export const refusalsArea: Area = {
  nav: { to: '/refusals', label: 'Refused' },
  routes: [{ path: 'refusals', element: <RefusalsPage /> }],
};
