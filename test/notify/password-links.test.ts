import { describe, expect, it } from 'vitest';
import { passwordLinkEmail } from '../../service/notify/password-links.js';
import { consoleLinks, consoleUrl } from '../../service/notify/console-url.js';

const expiry = new Date('2026-03-08T09:30:00Z');

describe('passwordLinkEmail', () => {
  it('invites a new user with the console link and the expiry', () => {
    const email = passwordLinkEmail({ user: { email: 'ivy@clinic.example', firstname: 'Ivy' }, token: 'abc123', tokenType: 'newUser', expiry }, 'https://junction.example:8080', 'Clinic HIM');
    expect(email.subject).toBe('Clinic HIM: set your password');
    expect(email.text).toContain('Hello Ivy,');
    expect(email.text).toContain('https://junction.example:8080/#/set-password/abc123');
    expect(email.text).toContain('until 2026-03-08 09:30 UTC');
    expect(email.html).toContain('<a href="https://junction.example:8080/#/set-password/abc123">');
  });

  it('words a reset as one, and escapes names in the HTML', () => {
    const email = passwordLinkEmail({ user: { email: 'bob@clinic.example', firstname: '<b>Bob</b>' }, token: 't', tokenType: 'existingUser', expiry }, 'https://j', 'HIM & Co');
    expect(email.subject).toBe('HIM & Co: reset your password');
    expect(email.text).toContain('If you did not ask for this');
    expect(email.html).not.toContain('<b>Bob</b>');
    expect(email.html).toContain('&#60;b&#62;Bob&#60;/b&#62;');
    expect(email.html).toContain('HIM &#38; Co');
  });
});

describe('consoleUrl', () => {
  const api = { protocol: 'https' as const, host: '127.0.0.1', port: 8080, machineName: 'hims01', lanAddresses: [] };

  it('uses alerts.consoleURL when set, without a trailing slash', () => {
    expect(consoleUrl(' https://him.clinic.example/console/ ', api)).toBe('https://him.clinic.example/console');
  });

  it('falls back to the API address, with the machine name for a wildcard host and brackets for IPv6', () => {
    expect(consoleUrl('', api)).toBe('https://127.0.0.1:8080');
    expect(consoleUrl('', { ...api, host: '0.0.0.0' })).toBe('https://hims01:8080');
    expect(consoleUrl('', { ...api, host: '::1', protocol: 'http' })).toBe('http://[::1]:8080');
  });

  it("prefers the machine's LAN address to its name, which other machines may not resolve, and says it guessed", () => {
    expect(consoleUrl('', { ...api, host: '0.0.0.0', lanAddresses: ['192.168.1.20', '10.0.0.5'] })).toBe('https://192.168.1.20:8080');
    expect(consoleLinks('', { ...api, host: '::', lanAddresses: ['192.168.1.20'] })).toEqual({ url: 'https://192.168.1.20:8080', configured: false });
    expect(consoleLinks('https://junction.clinic.example', api)).toEqual({ url: 'https://junction.clinic.example', configured: true });
  });
});
