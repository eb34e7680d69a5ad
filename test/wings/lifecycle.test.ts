/** The wings' lifecycle: built and started in order, halted then stopped newest first, whatever failed on the way. */
import { describe, expect, it } from 'vitest';
import { Lifecycle, Topic } from '../../service/wings/lifecycle.js';
import type { Wing } from '../../service/wings/lifecycle.js';

/** A wing that records each step of its life in `log`. */
function recorded(log: string[], name: string, extra: { failStart?: boolean } = {}): Wing<string> {
  log.push(`build ${name}`);
  return {
    offers: name,
    start: () => {
      log.push(`start ${name}`);
      if (extra.failStart === true) throw new Error(`${name} could not start`);
    },
    halt: () => log.push(`halt ${name}`),
    stop: async () => {
      await Promise.resolve();
      log.push(`stop ${name}`);
    },
  };
}

describe('Lifecycle', () => {
  it('starts wings in the order added, then halts every one before stopping any, newest first', async () => {
    const life = new Lifecycle();
    const log: string[] = [];
    const a = await life.add('a', () => recorded(log, 'a'));
    const b = await life.add('b', () => recorded(log, `b after ${a}`));
    await life.add('c', () => ({ offers: b }));
    await life.stop();
    expect(log).toEqual(['build a', 'start a', 'build b after a', 'start b after a', 'halt b after a', 'halt a', 'stop b after a', 'stop a']);
  });

  it('hands over what a wing offers only once it started, when start returns it', async () => {
    const life = new Lifecycle();
    let started = false;
    const port = await life.add('listen', () => ({
      start: async () => {
        await Promise.resolve();
        started = true;
        return { port: 1234 };
      },
    }));
    expect(started).toBe(true);
    expect(port).toEqual({ port: 1234 });
    await life.stop();
  });

  it('stops a wing whose start failed, and every wing before it, and builds none after it', async () => {
    const life = new Lifecycle();
    const log: string[] = [];
    const started = (async () => {
      await life.add('a', () => recorded(log, 'a'));
      await life.add('b', () => recorded(log, 'b', { failStart: true }));
      await life.add('c', () => recorded(log, 'c'));
    })();
    await expect(started).rejects.toThrow('b could not start');
    await life.stop();
    expect(log).toEqual(['build a', 'start a', 'build b', 'start b', 'halt b', 'halt a', 'stop b', 'stop a']);
  });

  it('stops a wing that finished building while the stop ran, and refuses to start it or any later one', async () => {
    const life = new Lifecycle();
    const log: string[] = [];
    await life.add('a', () => recorded(log, 'a'));
    let build!: () => void;
    const building = new Promise<void>((resolve) => (build = resolve));
    const late = life.add('b', async () => {
      await building;
      return recorded(log, 'b');
    });
    const stopped = life.stop();
    build();
    await expect(late).rejects.toThrow('the service is stopping: b was not started');
    await stopped;
    await expect(life.add('c', () => recorded(log, 'c'))).rejects.toThrow('the service is stopping: c was not started');
    expect(log.slice(0, 3)).toEqual(['build a', 'start a', 'halt a']);
    expect(log).toEqual(expect.arrayContaining(['stop a', 'build b', 'halt b', 'stop b']));
    expect(log).not.toContain('start b');
    expect(log).not.toContain('build c');
  });

  it('runs the stop once however often it is asked', async () => {
    const life = new Lifecycle();
    const log: string[] = [];
    await life.add('a', () => recorded(log, 'a'));
    await Promise.all([life.stop(), life.stop()]);
    await life.stop();
    expect(log.filter((l) => l === 'stop a')).toHaveLength(1);
  });
});

describe('Topic', () => {
  it('calls its listeners in the order they subscribed, waits for those that return a promise, and forgets one that unsubscribed', async () => {
    const topic = new Topic<[number]>();
    const heard: string[] = [];
    topic.subscribe((n) => heard.push(`first ${n}`));
    const leave = topic.subscribe((n) => heard.push(`second ${n}`));
    topic.subscribe(async (n) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      heard.push(`slow ${n}`);
    });
    await topic.emit(1);
    expect(heard).toEqual(['first 1', 'second 1', 'slow 1']);
    leave();
    await topic.emit(2);
    expect(heard.slice(3)).toEqual(['first 2', 'slow 2']);
  });

  it('throws where it is emitted when a listener throws, as a direct call would', () => {
    const topic = new Topic();
    topic.subscribe(() => {
      throw new Error('listener failed');
    });
    expect(() => topic.emit()).toThrow('listener failed');
  });
});
