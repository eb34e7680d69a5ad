/** Routes and navigation entry of the Transactions area (paths relative to the console root). */
import type { Area } from '../../components/Layout';
import { TransactionDetailPage } from './TransactionDetailPage';
import { TransactionsPage } from './TransactionsPage';

export const transactionsArea: Area = {
  nav: { to: '/transactions', label: 'Transactions' },
  routes: [
    { path: 'transactions', element: <TransactionsPage /> },
    { path: 'transactions/:id', element: <TransactionDetailPage /> },
  ],
};
