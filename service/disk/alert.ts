/**
 * The admins' email when the data folder runs low on space: recorded in the notification outbox (delivered by email
 * with retries, like every alert), one per admin per episode: the outbox key names the episode's start.
 */
import type { DiskSpace } from '../contracts/api.js';
import { formatBytes } from '../domain/operations/disk-space.js';
import { ADMIN_GROUP } from '../domain/access/permissions.js';
import type { Outbox, OutgoingMessage } from '../notify/outbox.js';
import type { UserRecord } from '../storage/records.js';
import type { Collection } from '../storage/store.js';

export interface LowSpaceAlertDeps {
  users: Collection<UserRecord>;
  outbox: Outbox;
  /** The instance's name in subjects (`alerts.himInstance`). */
  instance: string;
  dir: string;
}

/** The messages for one low-space episode, one per admin. */
export function lowSpaceMessages(space: DiskSpace, admins: readonly string[], deps: Pick<LowSpaceAlertDeps, 'instance' | 'dir'>): OutgoingMessage[] {
  const subject = `Junction ${deps.instance}: the data folder is running out of space (${formatBytes(space.freeBytes)} free)`;
  const text = [
    `The data folder ${deps.dir} of Junction ${deps.instance} has ${formatBytes(space.freeBytes)} free of ${formatBytes(space.totalBytes)} (measured ${space.checkedAt}).`,
    `Below ${formatBytes(space.floorBytes)} (storage.disk.floorMB) new transactions are refused with 503 STORE_UNAVAILABLE, and MLLP senders get an AR NAK, until space is freed.`,
    'Free space on that disk (old backups, rotated logs), or shorten transaction retention (retention.maxAgeDays) or the channels\' maxBodyAgeDays.',
    'This message is sent once per episode; it is sent again only after space has come back and run low again.',
  ].join('\n\n');
  return admins.map((to) => ({ kind: 'alert', method: 'email', to, user: to, subject, text, key: `disk-low:${space.checkedAt}:${to}` }));
}

/** Records the low-space email for every admin. */
export async function alertLowSpace(space: DiskSpace, deps: LowSpaceAlertDeps): Promise<void> {
  const admins = (await deps.users.find({})).filter((u) => u.groups.includes(ADMIN_GROUP)).map((u) => u.email);
  await deps.outbox.enqueue(lowSpaceMessages(space, admins, deps));
}
