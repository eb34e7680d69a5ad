/** Routes of the Transactions area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { PageHeader } from '../../components/PageHeader';

function TransactionsPage() {
  return <PageHeader title="Transactions" />;
}

export const transactionsRoutes: RouteObject[] = [{ path: 'transactions', element: <TransactionsPage /> }];
