import { describe, expect, it } from 'vitest';
import { nobodyAdmitted } from '../../service/domain/channels/channel-access.js';
import { alertRulesByMethod, databaseItems, messagingItems, visibleItems, worstFirst } from '../../service/domain/operations/attention.js';
import type { AttentionItem } from '../../service/contracts/attention.js';

const privateChannel = (fields: Partial<{ type: 'http' | 'tcp' | 'tls' | 'polling'; allow: string[]; whitelist: string[] }> = {}) => ({ type: 'http' as const, authType: 'private' as const, allow: [], whitelist: [], ...fields });
const lab = { clientID: 'lab', roles: ['labs'] };

describe('nobodyAdmitted', () => {
  it('admits through a public channel, a whitelist, or a client or role that exists', () => {
    expect(nobodyAdmitted({ ...privateChannel(), authType: 'public' }, [])).toBeNull();
    expect(nobodyAdmitted(privateChannel({ whitelist: ['10.0.0.5'] }), [])).toBeNull();
    expect(nobodyAdmitted(privateChannel({ allow: ['lab'] }), [lab])).toBeNull();
    expect(nobodyAdmitted(privateChannel({ allow: ['labs'] }), [lab])).toBeNull();
    expect(nobodyAdmitted(privateChannel({ allow: ['*'] }), [lab])).toBeNull();
    expect(nobodyAdmitted(privateChannel({ type: 'tls', allow: ['lab'] }), [lab])).toBeNull();
    // Polling channels are ticked by Junction itself.
    expect(nobodyAdmitted(privateChannel({ type: 'polling' }), [])).toBeNull();
  });

  it('says why nobody is admitted', () => {
    expect(nobodyAdmitted(privateChannel(), [lab])).toBe('it is private and allows no client, role or address');
    expect(nobodyAdmitted(privateChannel({ allow: ['*'] }), [])).toMatch(/no client exists/);
    expect(nobodyAdmitted(privateChannel({ allow: ['pharmacy'] }), [lab])).toMatch(/allows only "pharmacy", which names no existing client or role/);
    // A plain tcp listener cannot know a client, whatever allow says.
    expect(nobodyAdmitted(privateChannel({ type: 'tcp', allow: ['lab'] }), [lab])).toMatch(/tcp channel cannot identify clients/);
    expect(nobodyAdmitted(privateChannel({ type: 'tcp', whitelist: ['127.0.0.1'] }), [])).toBeNull();
  });
});

describe('the needs-attention decisions', () => {
  it('counts alert rules by the methods of their users and their groups', () => {
    const groups = new Map([['g1', ['sms' as const]]]);
    const channels = [
      { status: 'enabled', alerts: [{ users: [{ user: 'a', method: 'email' as const, maxAlerts: 'no max' as const }], groups: ['g1'] }, { users: [], groups: [] }] },
      { status: 'disabled', alerts: [{ users: [{ user: 'a', method: 'email' as const, maxAlerts: 'no max' as const }], groups: [] }] },
    ];
    expect(alertRulesByMethod(channels, groups)).toEqual({ email: 1, sms: 1 });
  });

  it('names email only when something would send by it', () => {
    const none = { alertRules: { email: 0, sms: 0 }, reportReaders: 0, invites: 0, admins: 0 };
    expect(messagingItems({ email: 'email.smtp.host is empty', sms: null }, none)).toEqual([]);
    const [item] = messagingItems({ email: 'email.smtp.host is empty', sms: 'sms.gatewayUrl is empty' }, { ...none, reportReaders: 2, invites: 1 });
    expect(item).toMatchObject({ kind: 'email-not-set-up', severity: 'error', message: 'Email is not set up (email.smtp.host is empty), so reports to 2 users and 1 set-password invite cannot be sent.' });
  });

  it('orders worst first and shows non-admins only items about channels they may view', () => {
    const item = (severity: AttentionItem['severity'], channel?: string): AttentionItem => ({ kind: 'disk-low', severity, message: '', fix: {}, ...(channel === undefined ? {} : { channel: { _id: channel, name: channel } }) });
    const items = worstFirst([item('info'), item('warning', 'x'), item('error'), item('warning', 'y')]);
    expect(items.map((i) => i.severity)).toEqual(['error', 'warning', 'warning', 'info']);
    expect(visibleItems(items, { admin: true, mayViewChannel: () => false })).toHaveLength(4);
    expect(visibleItems(items, { admin: false, mayViewChannel: (id) => id === 'y' }).map((i) => i.channel?._id)).toEqual(['y']);
  });
});

describe('databaseItems', () => {
  it('says nothing while the database answers, and names the outage, its start and its error while it does not', () => {
    expect(databaseItems(undefined)).toEqual([]);
    const [item] = databaseItems({ since: '2026-12-03T10:00:00.000Z', error: 'connect ECONNREFUSED 10.0.0.9:5432' });
    expect(item).toMatchObject({ kind: 'database-unreachable', severity: 'error', fix: { setting: 'storage.postgres.url' } });
    expect(item?.message).toContain('2026-12-03T10:00:00.000Z');
    expect(item?.message).toContain('connect ECONNREFUSED 10.0.0.9:5432');
    expect(item?.message).toContain('503 STORE_UNAVAILABLE');
  });
});
