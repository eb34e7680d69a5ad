/** The accounts wing: user accounts (with the first-run super user) and login sessions, expired ones purged hourly. */
import { UserAccounts } from '../accounts/users.js';
import { Sessions } from '../accounts/sessions.js';
import { emailedPasswordLinks } from '../notify/password-links.js';
import type { Store } from '../storage/store.js';
import type { Outbox } from '../notify/outbox.js';
import { Periodic } from './core.js';
import type { Core } from './core.js';
import type { Wing } from './lifecycle.js';

const SESSION_PURGE_MS = 60 * 60_000;

export interface Accounts {
  accounts: UserAccounts;
  sessions: Sessions;
}

export function accountsWing(core: Core, store: Store, outbox: Outbox): Wing<Accounts> {
  const { config, logger } = core;
  const accounts = new UserAccounts({
    users: store.users,
    logger,
    legacyTokens: config.api.authenticationTypes.includes('token'),
    sendLink: emailedPasswordLinks(outbox, () => core.console.url, config.alerts.himInstance),
  });
  const sessions = new Sessions({ sessions: store.sessions, idleMinutes: config.api.sessionTimeoutMinutes });
  const periodic = new Periodic(logger);
  return {
    offers: { accounts, sessions },
    async start() {
      await accounts.dropLegacyCredentialsUnlessEnabled();
      await accounts.seedSuperUser(config.adminPassword);
      await sessions.purgeExpired();
      periodic.every(SESSION_PURGE_MS, async () => {
        await sessions.purgeExpired();
      });
    },
    halt: () => periodic.halt(),
  };
}
