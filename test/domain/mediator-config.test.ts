import { describe, expect, it } from 'vitest';
import { carryOverConfig, configDefProblems, configProblems, maskConfig, unmaskConfig, valueProblems } from '../../service/domain/channels/mediator-config.js';
import type { MediatorConfigDef } from '../../service/storage/records.js';

const defs: MediatorConfigDef[] = [
  { param: 'name', type: 'string' },
  { param: 'on', type: 'bool' },
  { param: 'size', type: 'number' },
  { param: 'mode', type: 'option', values: ['a', 'b'] },
  { param: 'labels', type: 'map' },
  { param: 'secret', type: 'password' },
  { param: 'secrets', type: 'password', array: true },
  { param: 'db', type: 'struct', template: [{ param: 'host', type: 'string' }, { param: 'pass', type: 'password' }] },
  { param: 'dbs', type: 'struct', array: true, template: [{ param: 'pass', type: 'password' }] },
];

const paths = (problems: { path: string }[]) => problems.map((p) => p.path);

describe('configDefProblems', () => {
  it('accepts every type with its required extras', () => {
    expect(configDefProblems(defs, 'body.configDefs')).toEqual([]);
  });

  it('names the definition that breaks a rule', () => {
    const bad: MediatorConfigDef[] = [
      { param: 'o', type: 'option', values: [] },
      { param: 'o2', type: 'option', values: ['x', 'x'] },
      { param: 's', type: 'struct' },
      { param: 'n', type: 'struct', template: [{ param: 'inner', type: 'struct', template: [{ param: 'x', type: 'string' }] }] },
      { param: 'bad.key', type: 'string' },
      { param: 'o', type: 'string' },
      { param: 't', type: 'struct', template: [{ param: 'a', type: 'option' }, { param: 'a', type: 'string' }] },
    ];
    expect(paths(configDefProblems(bad, 'd'))).toEqual(['d.0.values', 'd.1.values', 'd.2.template', 'd.3.template.0.type', 'd.4.param', 'd.5.param', 'd.6.template.0.values', 'd.6.template.1.param']);
  });
});

describe('configProblems', () => {
  it('accepts values of the right types, and null as "not set"', () => {
    const config = { name: 'x', on: false, size: 0.5, mode: 'b', labels: { k: 'v' }, secret: 's', secrets: [], db: { host: 'h' }, dbs: [{ pass: 'p' }] };
    expect(configProblems(defs, config, 'c')).toEqual([]);
    expect(configProblems(defs, { name: null, db: null }, 'c')).toEqual([]);
  });

  it('names each value that does not fit', () => {
    const config = { name: 1, on: 'true', size: Number.NaN, mode: 'c', labels: { k: 1, 'a.b': 'x' }, secrets: 'one', db: { host: 'h', port: 1 }, dbs: [{ pass: 2 }], other: 1 };
    expect(paths(configProblems(defs, config, 'c'))).toEqual(['c.name', 'c.on', 'c.size', 'c.mode', 'c.labels.k', 'c.labels.a.b', 'c.secrets', 'c.db.port', 'c.dbs.0.pass', 'c.other']);
  });

  it('says what is allowed', () => {
    expect(valueProblems({ param: 'm', type: 'option', values: ['a', 'b'] }, 'c', 'm')[0]?.message).toBe('must be one of: "a", "b"');
  });
});

describe('password masking', () => {
  const stored = { name: 'x', secret: 'top', secrets: ['one', 'two'], db: { host: 'h', pass: 'dbpass' }, dbs: [{ pass: 'p1' }, { pass: 'p2' }], empty: '' };

  it('masks every non-empty password, in arrays and structs too, without touching the original', () => {
    const masked = maskConfig(defs, stored);
    expect(masked).toEqual({ name: 'x', secret: '********', secrets: ['********', '********'], db: { host: 'h', pass: '********' }, dbs: [{ pass: '********' }, { pass: '********' }], empty: '' });
    expect(stored.secret).toBe('top');
    expect(maskConfig(defs, { secret: '' })).toEqual({ secret: '' });
  });

  it('puts stored passwords back where the mask returns, by parameter, index and field', () => {
    const { config, problems } = unmaskConfig(defs, { ...maskConfig(defs, stored), secrets: ['********', 'new'], dbs: [{ pass: '********' }] }, stored, 'body');
    expect(problems).toEqual([]);
    expect(config).toMatchObject({ secret: 'top', secrets: ['one', 'new'], db: { pass: 'dbpass' }, dbs: [{ pass: 'p1' }] });
  });

  it('refuses a mask with nothing stored behind it', () => {
    const { problems } = unmaskConfig(defs, { secrets: ['********', '********', '********'], db: { pass: '********' } }, { secrets: ['one', 'two'] }, 'body');
    expect(paths(problems)).toEqual(['body.secrets.2', 'body.db.pass']);
  });
});

describe('carryOverConfig', () => {
  it('keeps configured values that the new definitions still accept, and takes the new defaults for the rest', () => {
    const next: MediatorConfigDef[] = [
      { param: 'name', type: 'string' },
      { param: 'size', type: 'string' },
      { param: 'mode', type: 'option', values: ['b', 'c'] },
      { param: 'fresh', type: 'bool' },
    ];
    const existing = { name: 'configured', size: 3, mode: 'a', gone: true };
    expect(carryOverConfig(next, { name: 'default', size: 'big', mode: 'c', fresh: true }, existing)).toEqual({ name: 'configured', size: 'big', mode: 'c', fresh: true });
  });
});
