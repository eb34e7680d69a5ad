/**
 * The live feed's frames (contracts/live-feed.ts) carry the in-process events (events/live.ts) as JSON: the same
 * fields, dates as ISO 8601 text. Checked at compile time, so an event field the console does not know about (or
 * the other way round) fails the build. The transaction events need no check: events/live.ts takes their type from
 * the contract.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { LiveFrame } from '../../service/contracts/live-feed.js';
import type { MediatorHeartbeatEvent, TaskProgressEvent } from '../../service/events/live.js';
import type { Plain } from './plain.js';

/** The data of the frames whose type may be T (one frame shape serves both transaction events). */
type FrameData<T extends LiveFrame['type'], F = LiveFrame> = F extends { type: infer Types; data: infer Data } ? (T extends Types ? Data : never) : never;

describe('live feed frames and events', () => {
  it('carry the same fields', () => {
    expectTypeOf<FrameData<'task.progress'>>().toEqualTypeOf<TaskProgressEvent>();
    expectTypeOf<FrameData<'mediator.heartbeat'>>().toEqualTypeOf<Plain<Omit<MediatorHeartbeatEvent, 'at'> & { at: string }>>();
  });
});
