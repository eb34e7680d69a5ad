/** Routes and navigation entry of the Settings area (paths relative to the console root). */
import type { Area } from '../../components/Layout';
import { SettingsPage } from './SettingsPage';

export const settingsArea: Area = {
  nav: { to: '/settings', label: 'Settings', adminOnly: true },
  routes: [{ path: 'settings', element: <SettingsPage /> }],
};
