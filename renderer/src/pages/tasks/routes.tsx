/** Routes of the Tasks area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { TaskDetailPage } from './TaskDetailPage';
import { TasksPage } from './TasksPage';

export const tasksRoutes: RouteObject[] = [
  { path: 'tasks', element: <TasksPage /> },
  { path: 'tasks/:id', element: <TaskDetailPage /> },
];
