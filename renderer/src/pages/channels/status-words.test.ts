import { describe, expect, it } from 'vitest';
import { lastMessageWords, listenerWords, todayWords } from './status-words';

describe("a channel's status in words", () => {
  it('says what the listener does, and why it is not bound', () => {
    expect(listenerWords({ condition: 'none' })).toBeNull();
    expect(listenerWords({ condition: 'listening', port: 2575 })).toEqual({ label: 'Listening on 2575', color: 'teal' });
    expect(listenerWords({ condition: 'starting', port: 2575 })?.label).toBe('Starting on 2575');
    expect(listenerWords({ condition: 'not-bound', port: 2575, reason: 'listen EADDRINUSE: address already in use 127.0.0.1:2575' })).toEqual({
      label: 'Not bound: port 2575 in use by another program',
      color: 'red',
      detail: 'listen EADDRINUSE: address already in use 127.0.0.1:2575',
    });
    expect(listenerWords({ condition: 'off', port: 2575, reason: 'the channel is disabled' })).toEqual({ label: 'Not listening: the channel is disabled', color: 'gray' });
  });

  it("says today's counts and how long ago the last message came", () => {
    expect(todayWords({ received: 12, failed: 1, refused: 0 })).toEqual({ received: '12 received', failed: '1 failed', refused: '0 refused' });
    const now = Date.parse('2026-12-03T12:00:00Z');
    expect(lastMessageWords(null, now)).toBe('never');
    expect(lastMessageWords('2026-12-03T11:59:30Z', now)).toBe('just now');
    expect(lastMessageWords('2026-12-03T11:55:00Z', now)).toBe('5 min ago');
    expect(lastMessageWords('2026-12-03T09:00:00Z', now)).toBe('3 h ago');
    expect(lastMessageWords('2026-12-02T10:00:00Z', now)).toBe('yesterday');
    expect(lastMessageWords('2026-11-29T10:00:00Z', now)).toBe('4 days ago');
  });
});
