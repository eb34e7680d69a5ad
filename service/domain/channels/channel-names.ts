/**
 * Channel names are unique among live channels only. A channel deleted while transactions refer to it is kept,
 * marked `deleted`, so those transactions keep their channel; it must not hold its name against a new channel, and
 * it is never resolved by name, matched or polled. Pure.
 */

/** The parts of a channel the name rule looks at; `_id` is absent for a channel not stored yet. */
export interface NamedChannel {
  _id?: string;
  name: string;
  /** A missing status counts as enabled (OpenHIM). */
  status?: string;
}

/** A live channel whose name another live channel would share. */
export interface NameClash {
  /** The written channel that would take the name. */
  channel: NamedChannel;
  /** The live channel that holds it already. */
  holder: NamedChannel;
}

/** True unless the channel is kept only as a deleted record. */
export function isLive(channel: { status?: string }): boolean {
  return channel.status !== 'deleted';
}

/**
 * The first clash the written channels would make once stored. `stored` are the channels as they are now (those
 * being rewritten included); `written` are the new or rewritten channels as they will be.
 */
export function liveNameClash(stored: readonly NamedChannel[], written: readonly NamedChannel[]): NameClash | null {
  const rewritten = new Set(written.flatMap((c) => (c._id === undefined ? [] : [c._id])));
  const after = [...stored.filter((c) => c._id === undefined || !rewritten.has(c._id)), ...written];
  for (const channel of written) {
    if (!isLive(channel)) continue;
    const holder = after.find((other) => other !== channel && isLive(other) && other.name === channel.name);
    if (holder !== undefined) return { channel, holder };
  }
  return null;
}
