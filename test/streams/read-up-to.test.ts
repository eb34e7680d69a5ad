import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readUpTo } from '../../service/streams/relay.js';

const text = (read: { chunks: Buffer[]; size: number }) => Buffer.concat(read.chunks, read.size).toString('utf8');

describe('readUpTo, the one body reader', () => {
  it('reads a body that ends within the limit, touching once per chunk', async () => {
    let touches = 0;
    const read = await readUpTo(Readable.from([Buffer.from('MSH|'), Buffer.from('ADT')]), 7, { touch: () => touches++ });
    expect(read).toMatchObject({ ended: true, size: 7 });
    expect(read.failure).toBeUndefined();
    expect(text(read)).toBe('MSH|ADT');
    expect(touches).toBe(2);
  });

  it('stops just past the limit and leaves the rest in the source, paused', async () => {
    const source = Readable.from([Buffer.from('abc'), Buffer.from('def'), Buffer.from('ghi')]);
    const read = await readUpTo(source, 4);
    expect(read).toMatchObject({ ended: false, size: 6 });
    expect(read.failure).toBeUndefined();
    expect(source.isPaused()).toBe(true);
    const rest: Buffer[] = [];
    for await (const chunk of source) rest.push(chunk as Buffer);
    expect(Buffer.concat(rest).toString()).toBe('ghi');
  });

  it('settles with the source error when the source fails', async () => {
    const source = new PassThrough();
    const reading = readUpTo(source, 100);
    source.write('partial');
    source.destroy(new Error('ECONNRESET'));
    const read = await reading;
    expect(read.ended).toBe(false);
    expect(read.failure).toEqual({ side: 'source', error: new Error('ECONNRESET') });
    expect(text(read)).toBe('partial');
  });

  it('settles when the source closes without ending or an error, with the caller\'s message', async () => {
    const quiet = new PassThrough();
    const reading = readUpTo(quiet, 100);
    quiet.destroy();
    expect((await reading).failure).toEqual({ side: 'source', error: new Error('the connection closed before the answer ended') });

    const request = new PassThrough();
    const cut = readUpTo(request, 100, { closedEarly: 'the client closed the connection before sending the whole request' });
    request.destroy();
    expect((await cut).failure?.error.message).toBe('the client closed the connection before sending the whole request');
  });

  it('reports the watchdog\'s reason, not the source error it caused', async () => {
    const source = new PassThrough();
    const abort = new AbortController();
    const reading = readUpTo(source, 100, { signal: abort.signal });
    const stalled = new Error('nothing moved for 3000 ms');
    abort.abort(stalled);
    source.destroy(new Error('aborted'));
    expect((await reading).failure).toEqual({ side: 'aborted', error: stalled });
  });
});
