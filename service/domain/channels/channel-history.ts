/**
 * A channel's change history, as OpenHIM keeps it (mongoose patch history): each create, update and delete is one
 * record of RFC 6902 JSON Patch operations from the channel before to the channel after. Route passwords never appear:
 * a changed password is recorded as the mask. Pure.
 */
import type { ChannelPatchOp } from '../../contracts/channels.js';
import { PASSWORD_MASK } from '../util/password-mask.js';

/** Fields left out of the operations: the record itself carries the date, the author and the channel's id. */
const UNRECORDED = ['_id', 'createdAt', 'updatedAt', 'updatedBy'];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A channel as plain JSON (dates as ISO text), without the fields the record carries itself. */
function plain(channel: object | null): { [key: string]: Json } {
  if (channel === null) return {};
  const json = JSON.parse(JSON.stringify(channel)) as { [key: string]: Json };
  for (const key of UNRECORDED) delete json[key];
  return json;
}

const pointer = (segment: string | number): string => String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
const isObject = (v: Json | undefined): v is { [key: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);

function diff(before: Json, after: Json, path: string, ops: ChannelPatchOp[]): void {
  if (Array.isArray(before) && Array.isArray(after)) {
    const common = Math.min(before.length, after.length);
    for (let i = 0; i < common; i++) diff(before[i] as Json, after[i] as Json, `${path}/${i}`, ops);
    for (let i = common; i < after.length; i++) ops.push({ op: 'add', path: `${path}/${i}`, value: after[i] });
    // From the end, so each index is still valid when its operation is applied.
    for (let i = before.length - 1; i >= common; i--) ops.push({ op: 'remove', path: `${path}/${i}` });
    return;
  }
  if (isObject(before) && isObject(after)) {
    for (const key of Object.keys(before)) if (!(key in after)) ops.push({ op: 'remove', path: `${path}/${pointer(key)}` });
    for (const [key, value] of Object.entries(after)) {
      const at = `${path}/${pointer(key)}`;
      if (!(key in before)) ops.push({ op: 'add', path: at, value });
      else diff(before[key] as Json, value, at, ops);
    }
    return;
  }
  if (JSON.stringify(before) !== JSON.stringify(after)) ops.push({ op: 'replace', path, value: after });
}

/** `value` with every `password` text replaced by the mask. */
function masked(value: unknown, key?: string): unknown {
  if (key === 'password' && typeof value === 'string') return PASSWORD_MASK;
  if (Array.isArray(value)) return value.map((v) => masked(v));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, k)]));
  return value;
}

/**
 * The operations that turn `before` into `after` (null for a channel that does not exist yet, or any more), with
 * every route password shown as the mask. Empty when nothing recorded changed.
 */
export function channelPatch(before: object | null, after: object | null): ChannelPatchOp[] {
  const ops: ChannelPatchOp[] = [];
  diff(plain(before), plain(after), '', ops);
  return ops.map((op) => {
    if (op.value === undefined) return op;
    const last = op.path.slice(op.path.lastIndexOf('/') + 1);
    return { ...op, value: masked(op.value, last) };
  });
}
