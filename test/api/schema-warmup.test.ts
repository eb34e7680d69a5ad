/** The background compile of route schemas after start: the console's first routes first, each once, stoppable. */
import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { SchemaWarmup } from '../../service/api/schema-warmup.js';

async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await turn();
}

describe('SchemaWarmup', () => {
  it('compiles nothing before start, then one schema per turn, the console’s first routes first', async () => {
    const warmup = new SchemaWarmup();
    const done: string[] = [];
    for (const url of ['/users', '/transactions/:id', '/audits', '/me', '/transactions', '/channels/:channelId'])
      warmup.add(url, () => done.push(url));
    await turns(3);
    expect(done).toEqual([]);
    warmup.start();
    await turn();
    await turn();
    expect(done.length).toBeLessThanOrEqual(2);
    await turns(10);
    expect(done).toEqual(['/me', '/transactions/:id', '/transactions', '/channels/:channelId', '/users', '/audits']);
  });

  it('goes on past a schema that fails to compile, and stops when told', async () => {
    const warmup = new SchemaWarmup();
    const done: string[] = [];
    warmup.add('/me', () => {
      throw new Error('bad schema');
    });
    warmup.add('/users', () => {
      done.push('/users');
      warmup.stop();
    });
    warmup.add('/roles', () => done.push('/roles'));
    warmup.start();
    await turns(10);
    expect(done).toEqual(['/users']);
  });
});

describe('SchemaWarmup while the API answers', () => {
  it('compiles /me and /transactions during a request, and the rest only once every request is released', async () => {
    const warmup = new SchemaWarmup();
    const done: string[] = [];
    for (const url of ['/users', '/transactions', '/me', '/channels']) warmup.add(url, () => done.push(url));
    const first = warmup.hold();
    const second = warmup.hold();
    warmup.start();
    await turns(10);
    expect(done).toEqual(['/me', '/transactions']);
    first();
    // Releasing twice counts once: the second request is still being answered.
    first();
    await turns(10);
    expect(done).toEqual(['/me', '/transactions']);
    second();
    await turns(10);
    expect(done).toEqual(['/me', '/transactions', '/channels', '/users']);
  });

  it('holds nothing once the queue has finished, and a request arriving mid-queue parks it until released', async () => {
    const warmup = new SchemaWarmup();
    const done: string[] = [];
    let release: (() => void) | undefined;
    warmup.add('/me', () => done.push('/me'));
    warmup.add('/roles', () => {
      done.push('/roles');
      release = warmup.hold();
    });
    warmup.add('/users', () => done.push('/users'));
    warmup.start();
    await turns(10);
    expect(done).toEqual(['/me', '/roles']);
    release?.();
    await turns(10);
    expect(done).toEqual(['/me', '/roles', '/users']);
    // Finished: a hold is a no-op whose release changes nothing.
    const late = warmup.hold();
    late();
    await turns(3);
    expect(done).toEqual(['/me', '/roles', '/users']);
  });
});

describe('SchemaWarmup.opensWith', () => {
  it('names exactly the two routes a console opens with', () => {
    const warmup = new SchemaWarmup();
    expect(['/me', '/transactions', '/transactions/:id', '/channels', '/me/x'].map((url) => warmup.opensWith(url))).toEqual([true, true, false, false, false]);
  });
});
