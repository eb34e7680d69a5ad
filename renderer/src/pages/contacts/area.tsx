/** Routes and navigation entry of the Contact groups area (paths relative to the console root). */
import type { Area } from '../../components/Layout';
import { ContactGroupsPage } from './ContactGroupsPage';

export const contactsArea: Area = {
  nav: { to: '/contact-groups', label: 'Contact groups', adminOnly: true },
  routes: [{ path: 'contact-groups', element: <ContactGroupsPage /> }],
};
