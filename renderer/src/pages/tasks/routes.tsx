/** Routes of the Tasks area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { PageHeader } from '../../components/PageHeader';

function TasksPage() {
  return <PageHeader title="Tasks" />;
}

export const tasksRoutes: RouteObject[] = [{ path: 'tasks', element: <TasksPage /> }];
