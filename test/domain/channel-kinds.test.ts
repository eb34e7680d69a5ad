import { describe, expect, it } from 'vitest';
import { CHANNEL_TYPES, ROUTE_TYPES } from '../../service/contracts/channels.js';
import { CHANNEL_KINDS, channelKind, LISTENING_CHANNEL_TYPES, listenerOf } from '../../service/domain/channels/channel-kinds.js';
import { RouteSenderPool } from '../../service/routing/senders.js';

describe('channel and route kind tables', () => {
  it('has one channel kind row per declared channel type, and knows which listen', () => {
    expect(Object.keys(CHANNEL_KINDS).sort()).toEqual([...CHANNEL_TYPES].sort());
    expect(LISTENING_CHANNEL_TYPES).toEqual(['tcp', 'tls']);
    expect(listenerOf({ type: 'tls' })).toBe('tls');
    expect(listenerOf({ type: 'http' })).toBeNull();
    expect(channelKind('polling')?.entry).toBe('poll');
  });

  it('treats a type it does not know as a channel that takes nothing, not as a tcp listener', () => {
    expect(channelKind('kafka')).toBeUndefined();
    expect(channelKind('toString')).toBeUndefined();
    expect(listenerOf({ type: 'kafka' })).toBeNull();
  });

  it('has a sender for every declared route type', async () => {
    const pool = new RouteSenderPool({ maxMessageBytes: 1024, connectionsPerUpstream: 1, idleTimeoutMs: 1000 });
    try {
      expect(Object.keys(pool.senders).sort()).toEqual([...ROUTE_TYPES].sort());
      expect(pool.senders.http.carries).toBe('request');
      expect(pool.senders.mllp.carries).toBe('message');
      expect(pool.senders.tcp.carries).toBe('message');
    } finally {
      await pool.close();
    }
  });
});
