import { describe, expect, it } from 'vitest';
import { LiveEvents } from '../../service/events/live.js';
import { VisualizerRecorder } from '../../service/visualizer/recorder.js';
import { END_NORMALIZATION_MS, endEvents, startEvent } from '../../service/domain/transactions/visualizer-events.js';
import type { FinishedTransaction } from '../../service/domain/transactions/visualizer-events.js';

const channel = { name: 'ward', routes: [{ name: 'copy' }, { name: 'main', primary: true }] };

function finished(id: string, overrides: Partial<FinishedTransaction> = {}): FinishedTransaction {
  return {
    _id: id,
    channelID: 'c1',
    request: { timestamp: new Date(1000) },
    response: { status: 200, timestamp: new Date(1050) },
    routes: [],
    orchestrations: [],
    autoRetryAttempt: 0,
    ...overrides,
  };
}

describe('the visualizer events of a transaction', () => {
  it('names the primary route, pushes ends by the normalization, and marks 5xx and missing responses as errors', () => {
    const events = endEvents(
      finished('t1', {
        response: { status: 502, timestamp: new Date(1200) },
        routes: [{ name: 'copy', request: { timestamp: new Date(1010) } }],
        orchestrations: [{ name: 'lookup', request: { timestamp: new Date(1020) }, response: { status: 404, timestamp: new Date(1030) } }],
      }),
      channel,
    );
    expect(events.find((e) => e.type === 'primary' && e.event === 'start')).toMatchObject({ name: 'main', normalizedTimestamp: 1000 });
    expect(events.find((e) => e.type === 'channel' && e.event === 'end')).toMatchObject({ status: 502, statusType: 'error', normalizedTimestamp: 1200 + END_NORMALIZATION_MS });
    expect(events.find((e) => e.type === 'orchestration' && e.event === 'end')).toMatchObject({ name: 'lookup', status: 404, statusType: 'success' });
    // A route without a response ends when the transaction does, as an error without a status.
    const routeEnd = events.find((e) => e.type === 'route' && e.event === 'end')!;
    expect(routeEnd).toMatchObject({ name: 'copy', statusType: 'error', normalizedTimestamp: 1200 });
    expect(routeEnd.status).toBeUndefined();
    const noResponse = endEvents(finished('t2', { response: undefined }), channel);
    expect(noResponse.find((e) => e.type === 'channel')).toMatchObject({ statusType: 'error', normalizedTimestamp: 1000 + END_NORMALIZATION_MS });
  });
});

describe('the visualizer recorder', () => {
  function recorder(options: { ttlMs?: number; maxEvents?: number } = {}) {
    let now = 10_000;
    const bus = new LiveEvents();
    const rec = new VisualizerRecorder({ events: bus, channel: async (id) => (id === 'gone' ? null : channel), now: () => now, ...options }).attach();
    const run = async (id: string, channelID = 'c1') => {
      bus.emit('transaction.started', { transactionId: id, channelID, status: 'Processing', method: 'GET', path: '/' });
      bus.completed({ transactionId: id, channelID, status: 'Successful', method: 'GET', path: '/', responseStatus: 200 }, { channelName: 'ward', transaction: finished(id, { channelID }) });
      await rec.settled();
    };
    return { rec, bus, run, advance: (ms: number) => (now += ms), now: () => now };
  }

  it('drops events older than its time to live', async () => {
    const { rec, run, advance } = recorder({ ttlMs: 1000 });
    await run('a');
    advance(600);
    await run('b');
    expect(new Set(rec.since(0).map((e) => e.transactionID))).toEqual(new Set(['a', 'b']));
    advance(500);
    expect(new Set(rec.since(0).map((e) => e.transactionID))).toEqual(new Set(['b']));
  });

  it('keeps at most its cap, dropping the oldest first', async () => {
    const { rec, run, advance } = recorder({ maxEvents: 10 });
    for (let i = 0; i < 50; i++) {
      await run(`t${i}`);
      advance(1);
    }
    expect(rec.size).toBeLessThanOrEqual(10);
    const kept = rec.since(0);
    expect(kept.length).toBe(rec.size);
    expect(kept.some((e) => e.transactionID === 't49')).toBe(true);
    expect(kept.some((e) => e.transactionID === 't0')).toBe(false);
  });

  it('records nothing for a channel deleted meanwhile, and stops when detached', async () => {
    const { rec, run } = recorder();
    await run('x', 'gone');
    expect(rec.size).toBe(0);
    rec.detach();
    await run('y');
    expect(rec.size).toBe(0);
  });

  it('draws the same events from a channel at hand as endEvents does, and counts them against the cap', () => {
    const bus = new LiveEvents();
    const errors: unknown[] = [];
    let now = 5_000;
    // A lookup that answers at once (the pipeline's in-memory list), one that throws, and one for a gone channel.
    const lookup = (id: string) => {
      if (id === 'broken') throw new Error('no list');
      return id === 'gone' ? null : channel;
    };
    const rec = new VisualizerRecorder({ events: bus, channel: lookup, now: () => now, onError: (err) => errors.push(err) }).attach();
    const tx = finished('t1', {
      routes: [{ name: 'copy', request: { timestamp: new Date(1010) }, response: { status: 201, timestamp: new Date(1040) } }],
      orchestrations: [{ name: 'lookup', request: { timestamp: new Date(1020) } }],
    });
    bus.emit('transaction.started', { transactionId: 't1', channelID: 'c1', status: 'Processing', method: 'POST', path: '/' });
    now += 10;
    bus.completed({ transactionId: 't1', channelID: 'c1', status: 'Successful', method: 'POST', path: '/', responseStatus: 200 }, { channelName: 'ward', transaction: tx });
    // Recorded synchronously: nothing pending, and the events are there before any promise settles.
    const expected = [startEvent('t1', 'c1', 'ward', 5_000), ...endEvents(tx, channel)].sort((a, b) => a.normalizedTimestamp - b.normalizedTimestamp);
    expect(rec.since(0)).toEqual(expected);
    expect(rec.size).toBe(expected.length);
    // Only the end is at or after the time it was recorded.
    expect(rec.since(5_010)).toEqual(endEvents(tx, channel).sort((a, b) => a.normalizedTimestamp - b.normalizedTimestamp));
    bus.emit('transaction.started', { transactionId: 't2', channelID: 'broken', status: 'Processing', method: 'GET', path: '/' });
    bus.emit('transaction.started', { transactionId: 't3', channelID: 'gone', status: 'Processing', method: 'GET', path: '/' });
    expect(errors).toHaveLength(1);
    expect(rec.size).toBe(expected.length);
  });

  it('keeps no more of a transaction than its events need', () => {
    const bus = new LiveEvents();
    const rec = new VisualizerRecorder({ events: bus, channel: () => channel, now: () => 1 }).attach();
    const tx = { ...finished('t1'), request: { timestamp: new Date(1000), headers: { big: 'x'.repeat(10_000) } } };
    bus.completed({ transactionId: 't1', channelID: 'c1', status: 'Successful', method: 'GET', path: '/', responseStatus: 200 }, { channelName: 'ward', transaction: tx });
    // Changing the record afterwards changes nothing recorded: the entry holds copies of the few fields it draws from.
    tx.request.timestamp = new Date(9_000);
    expect(rec.since(0).find((e) => e.type === 'primary' && e.event === 'start')?.normalizedTimestamp).toBe(1000);
  });
});
