/**
 * Where each page of the console is explained in the manual (issue 39): the header's Help link opens the page's
 * guide, served by the service at `/docs` (so it works with no internet). One table for the whole console; a page
 * not listed gets the entry of the nearest path above it, and the manual's contents at worst.
 * test/docs/help-links.test.ts checks that every page and anchor named here exists in docs/.
 */

/** A console path (as the router has it, `:name` for a parameter) and the manual's page and section for it. */
export interface HelpEntry {
  path: string;
  doc: string;
}

export const HELP: readonly HelpEntry[] = [
  { path: '/', doc: 'index.md' },
  { path: '/transactions', doc: 'support/transactions.md#finding-a-transaction' },
  { path: '/transactions/:id', doc: 'support/transactions.md#reading-hl7-and-fhir-bodies' },
  { path: '/refusals', doc: 'admin/channels.md#refused-requests-and-messages' },
  { path: '/channels', doc: 'admin/channels.md#the-channels-page' },
  { path: '/channels/new', doc: 'admin/channels.md#what-a-channel-holds' },
  { path: '/channels/:id', doc: 'admin/channels.md#what-a-channel-holds' },
  { path: '/channels/:id/metrics', doc: 'admin/channels.md#channel-status-route-checks-and-test-messages' },
  { path: '/clients', doc: 'admin/clients.md' },
  { path: '/roles', doc: 'admin/users.md#roles' },
  { path: '/users', doc: 'admin/users.md' },
  { path: '/account', doc: 'admin/users.md#signing-in' },
  { path: '/contact-groups', doc: 'admin/alerts.md#alerts' },
  { path: '/notifications', doc: 'admin/alerts.md' },
  { path: '/mediators', doc: 'integrator/mediators.md' },
  { path: '/mediators/:urn', doc: 'integrator/mediators.md#configuring-a-mediator-in-the-console' },
  { path: '/tasks', doc: 'support/transactions.md#re-running-safely' },
  { path: '/audits', doc: 'support/audit-log.md' },
  { path: '/logs', doc: 'operations/logs.md#the-logs-page' },
  { path: '/import-export', doc: 'admin/backup.md#export-and-import' },
  { path: '/backup', doc: 'admin/backup.md#backup-and-restore' },
  { path: '/certificates', doc: 'admin/certificates.md' },
  { path: '/settings', doc: 'admin/alerts.md#settings-in-the-console' },
  { path: '/about', doc: 'install.md' },
];

/** Where the sign-in page's link leads: signing in, invitations and OpenID, readable without a session. */
export const SIGN_IN_HELP = '/docs/admin/users.md#signing-in';

/** The manual's front page, where a console path with no entry of its own (nor above it) leads. */
export const MANUAL_HOME = '/docs/';

function matches(pattern: readonly string[], path: readonly string[]): boolean {
  return pattern.length === path.length && pattern.every((part, i) => part.startsWith(':') || part === path[i]);
}

/** The address of the manual's section for the console page at `pathname` (`/channels/6a1f...` and the like). */
export function helpFor(pathname: string): string {
  const path = pathname.split('/').filter((part) => part !== '');
  for (let length = path.length; length > 0; length--) {
    const prefix = path.slice(0, length);
    // A literal entry (`/channels/new`) wins over a parameter one (`/channels/:id`).
    const entries = HELP.filter((e) => matches(e.path.split('/').filter((p) => p !== ''), prefix)).sort((a, b) => a.path.split(':').length - b.path.split(':').length);
    const entry = entries[0];
    if (entry !== undefined) return `/docs/${entry.doc === 'index.md' ? '' : entry.doc}`;
  }
  return MANUAL_HOME;
}
