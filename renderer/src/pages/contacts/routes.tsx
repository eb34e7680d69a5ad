/** Routes of the Contact groups area (paths relative to the console root). */
import type { RouteObject } from 'react-router';
import { ContactGroupsPage } from './ContactGroupsPage';

export const contactsRoutes: RouteObject[] = [{ path: 'contact-groups', element: <ContactGroupsPage /> }];
