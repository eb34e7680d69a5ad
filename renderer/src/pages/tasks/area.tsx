/** Routes and navigation entry of the Tasks area (paths relative to the console root). */
import type { Area } from '../../components/Layout';
import { TaskDetailPage } from './TaskDetailPage';
import { TasksPage } from './TasksPage';

export const tasksArea: Area = {
  nav: { to: '/tasks', label: 'Tasks' },
  routes: [
    { path: 'tasks', element: <TasksPage /> },
    { path: 'tasks/:id', element: <TaskDetailPage /> },
  ],
};
