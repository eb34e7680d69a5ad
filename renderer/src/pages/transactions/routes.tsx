/** Routes of the Transactions area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { TransactionDetailPage } from './TransactionDetailPage';
import { TransactionsPage } from './TransactionsPage';

export const transactionsRoutes: RouteObject[] = [
  { path: 'transactions', element: <TransactionsPage /> },
  { path: 'transactions/:id', element: <TransactionDetailPage /> },
];
