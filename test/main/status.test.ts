import { describe, expect, it } from 'vitest';
import { menuLabel, statusLine, statusPage, statusPageUrl } from '../../main/status.js';
import { describeExit, isReadyMessage, summariseErrors } from '../../main/supervisor.js';

const ready = { type: 'ready' as const, apiUrl: 'https://127.0.0.1:8080', version: '1.0.0', certificateFingerprint256: 'AA' };

describe('status words', () => {
  it('gives the tray one line per state', () => {
    expect(statusLine({ phase: 'starting', pid: 1 })).toBe('Starting…');
    expect(statusLine({ phase: 'running', pid: 1, ready })).toBe('Running at https://127.0.0.1:8080');
    expect(statusLine({ phase: 'restarting', reason: 'x', delayMs: 1000, crashes: 1 })).toBe('Restarting…');
    expect(statusLine({ phase: 'failed', reason: 'port 8080 is in use' })).toBe('Failed: port 8080 is in use');
  });

  it('keeps menu labels to one short line', () => {
    expect(menuLabel('a\nb   c')).toBe('a b c');
    expect(menuLabel('x'.repeat(200))).toHaveLength(90);
    expect(menuLabel('x'.repeat(200)).endsWith('…')).toBe(true);
  });

  it('shows the failure reason and the log folder on the status page, escaped, with a script-free CSP', () => {
    const html = statusPage({ phase: 'failed', reason: 'bad <script>alert(1)</script> & "quotes"' }, '/home/a/.config/Junction/logs');
    expect(html).toContain('Junction could not start');
    expect(html).toContain('bad &#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;quotes&#34;');
    expect(html).not.toContain('<script>');
    expect(html).toContain('/home/a/.config/Junction/logs');
    expect(html).toContain('role="alert"');
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
    expect(statusPage({ phase: 'starting', pid: null }, '/logs')).toContain('Junction is starting');
  });

  it('encodes the page as a data: URL', () => {
    const url = statusPageUrl({ phase: 'starting', pid: null }, '/logs');
    expect(url.startsWith('data:text/html;charset=utf-8,')).toBe(true);
    expect(decodeURIComponent(url.slice('data:text/html;charset=utf-8,'.length))).toBe(statusPage({ phase: 'starting', pid: null }, '/logs'));
  });
});

describe('reading the child', () => {
  it('accepts only a well-formed ready message', () => {
    expect(isReadyMessage(ready)).toBe(true);
    expect(isReadyMessage({ ...ready, certificateFingerprint256: null, apiUrl: 'http://127.0.0.1:8080' })).toBe(true);
    expect(isReadyMessage({ ...ready, type: 'other' })).toBe(false);
    expect(isReadyMessage({ ...ready, apiUrl: 'file:///x' })).toBe(false);
    expect(isReadyMessage({ ...ready, version: 1 })).toBe(false);
    expect(isReadyMessage({ type: 'ready', apiUrl: 'https://x' })).toBe(false);
    expect(isReadyMessage(null)).toBe(false);
    expect(isReadyMessage('ready')).toBe(false);
  });

  it('describes how a process ended', () => {
    expect(describeExit(1, null)).toBe('exited with code 1');
    expect(describeExit(null, 'SIGKILL')).toBe('was ended by SIGKILL');
  });

  it('sums up stderr without stack frames or the Node footer', () => {
    const crash = [
      'file:///app/dist/service/index.js:10',
      "    throw new Error('boom');",
      '    ^',
      '',
      'Error: boom',
      '    at main (file:///app/dist/service/index.js:10:11)',
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
      '',
      'Node.js v20.20.2',
    ];
    expect(summariseErrors(crash)).toBe("file:///app/dist/service/index.js:10 throw new Error('boom'); Error: boom");
    expect(summariseErrors(['Junction cannot start: Invalid configuration:', '- JUNCTION_API_PORT="x" (api.port): must be an integer'])).toBe(
      'Junction cannot start: Invalid configuration: - JUNCTION_API_PORT="x" (api.port): must be an integer',
    );
    expect(summariseErrors([])).toBe('');
  });
});
