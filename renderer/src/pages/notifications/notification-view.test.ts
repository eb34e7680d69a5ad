/** The notifications page's words: a test send's outcome from its record, and test addresses refused before sending. */
import { describe, expect, it } from 'vitest';
import type { Notification } from '../../../../service/contracts/notifications';
import { testAddressProblem, testOutcome } from './notification-view';

const record = (patch: Partial<Notification>): Notification => ({
  _id: '65f0c0ffee00000000000001',
  kind: 'test',
  method: 'email',
  to: 'admin@clinic.example',
  subject: 'Junction test message',
  status: 'sent',
  attempts: 1,
  created: '2025-03-01T07:00:00.000Z',
  ...patch,
});

const time = (iso: string) => `at(${iso})`;

describe('test send outcome', () => {
  it('says a sent message went, and to where', () => {
    expect(testOutcome(record({}), time)).toEqual({
      sent: true,
      title: 'Test message sent',
      text: 'The email to admin@clinic.example was accepted by the mail server. Check that it arrived.',
    });
    expect(testOutcome(record({ method: 'sms', to: '+27821234567' }), time).text).toContain('SMS to +27821234567 was accepted by the SMS gateway');
  });

  it('gives the reason a message failed', () => {
    const outcome = testOutcome(record({ status: 'failed', lastError: 'connect ECONNREFUSED 127.0.0.1:2525' }), time);
    expect(outcome).toEqual({ sent: false, title: 'Test message not sent', text: 'The email to admin@clinic.example could not be sent. Reason: connect ECONNREFUSED 127.0.0.1:2525' });
    expect(testOutcome(record({ status: 'failed' }), time).text).toContain('No reason was recorded.');
  });

  it('says when a message still pending is tried again', () => {
    const outcome = testOutcome(record({ status: 'pending', lastError: 'timeout', nextAttemptAt: '2025-03-01T07:01:00.000Z' }), time);
    expect(outcome.sent).toBe(false);
    expect(outcome.title).toBe('Test message not sent yet');
    expect(outcome.text).toBe('The email to admin@clinic.example could not be sent on the first try. Reason: timeout Junction tries again at at(2025-03-01T07:01:00.000Z).');
  });
});

describe('test address', () => {
  it('needs an email address for email and a number for SMS', () => {
    expect(testAddressProblem('email', ' ')).toBe('Enter the email address to send to');
    expect(testAddressProblem('email', 'admin')).toMatch(/whole email address/);
    expect(testAddressProblem('email', ' admin@clinic.example ')).toBeNull();
    expect(testAddressProblem('sms', '')).toBe('Enter the mobile number to send to');
    expect(testAddressProblem('sms', 'admin@clinic.example')).toMatch(/international number/);
    expect(testAddressProblem('sms', '082 123')).toMatch(/international number/);
    expect(testAddressProblem('sms', '+27821234567')).toBeNull();
  });
});
