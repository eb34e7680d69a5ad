/**
 * What a channel body means before the defaults and rules see it (POST and PUT /channels). OpenHIM's console saves by
 * sending the whole fetched document back, with its `_id`, read-only fields, `null` for unused fields and '' for an
 * unused text; this turns such a body into the plain changes it stands for. Pure.
 */

/** Fields of an answer (and of OpenHIM's documents) that a body may carry back; the service sets them itself. */
export const READ_ONLY_CHANNEL_FIELDS = ['_id', 'createdAt', 'updatedAt', 'updatedBy', '__v', 'lastBodyCleared', 'listener', 'admitsNobody'] as const;

/** Optional texts of a channel where '' (OpenHIM console's value for an unused field) means "not set". */
const OPTIONAL_TEXTS = ['description', 'matchContentRegex', 'matchContentXpath', 'matchContentJson', 'matchContentValue', 'tcpHost', 'pollingSchedule'];

/** Route fields accepted only to be ignored: OpenHIM's sub-document id, and the Kafka brokers its console sends empty. */
const IGNORED_ROUTE_FIELDS = ['_id', 'kafkaBrokers'];

function withoutKeys(item: unknown, keys: readonly string[]): unknown {
  if (item === null || typeof item !== 'object') return item;
  return Object.fromEntries(Object.entries(item).filter(([key]) => !keys.includes(key)));
}

/**
 * The changes a body stands for: read-only fields dropped (an `_id` never retargets anything), '' in an optional
 * text turned into null, OpenHIM's sub-document ids dropped, and Junction's earlier `whitelistedIPs` read as
 * `whitelist` (which wins when both are sent). Null stays null: on a PUT it removes the field, on a POST see `unset`.
 */
export function channelChanges(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if ((READ_ONLY_CHANNEL_FIELDS as readonly string[]).includes(key) || key === 'whitelistedIPs') continue;
    changes[key] = value === '' && OPTIONAL_TEXTS.includes(key) ? null : value;
  }
  if (body.whitelist === undefined && body.whitelistedIPs !== undefined) changes.whitelist = body.whitelistedIPs;
  if (Array.isArray(body.routes)) changes.routes = body.routes.map((r) => withoutKeys(r, IGNORED_ROUTE_FIELDS));
  if (Array.isArray(body.alerts)) changes.alerts = body.alerts.map((a) => withoutKeys(a, ['_id']));
  return changes;
}

/** A new channel's body: its changes with every null ("not set") left out. */
export function newChannelBody(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(channelChanges(body)).filter(([, value]) => value !== null));
}
