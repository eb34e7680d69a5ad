/** The public shape of a refusal row (contracts/refusals.ts). */
import type { Refusal } from '../../contracts/refusals.js';
import type { StoredRefusal } from '../../storage/refusals.js';

export function presentRefusal(row: StoredRefusal): Refusal {
  return {
    _id: row.id,
    minute: new Date(row.minute).toISOString(),
    firstAt: new Date(row.first).toISOString(),
    lastAt: new Date(row.last).toISOString(),
    count: row.count,
    reason: row.reason,
    listener: row.listener,
    port: row.port,
    channelID: row.channelId === '' ? null : row.channelId,
    channelName: row.channelName === '' ? null : row.channelName,
    address: row.address,
    client: row.client,
    detail: row.detail,
  };
}
