/** The mediator configuration form's working copy: config -> drafts -> config, and the problems that stop a save. */
import { describe, expect, it } from 'vitest';
import type { MediatorConfig, MediatorConfigDef } from '../../../../service/contracts/mediators';
import { draftId, fromDrafts, newItem, PASSWORD_MASK, toDraft, toDrafts } from './config-draft';
import type { ArrayDraft, Draft, Drafts, MapDraft, StructDraft } from './config-draft';

const SERVER: MediatorConfigDef[] = [
  { param: 'host', type: 'string' },
  { param: 'port', type: 'number' },
  { param: 'secure', type: 'bool' },
  { param: 'password', type: 'password' },
];

/** One of each kind of parameter OpenHIM mediators declare, lists included. */
const DEFS: MediatorConfigDef[] = [
  { param: 'name', type: 'string' },
  { param: 'notes', type: 'bigstring' },
  { param: 'timeoutSeconds', type: 'number' },
  { param: 'verbose', type: 'bool' },
  { param: 'mode', type: 'option', values: ['fast', 'safe'] },
  { param: 'apiKey', type: 'password' },
  { param: 'headers', type: 'map' },
  { param: 'upstream', type: 'struct', template: SERVER },
  { param: 'servers', type: 'struct', template: SERVER, array: true },
  { param: 'ports', type: 'number', array: true },
  { param: 'tags', type: 'string', array: true },
  { param: 'levels', type: 'option', values: ['low', 'high'], array: true },
];

const CONFIG: MediatorConfig = {
  name: 'Lab adapter',
  notes: 'line one\nline two',
  timeoutSeconds: 2.5,
  verbose: false,
  mode: 'safe',
  apiKey: PASSWORD_MASK,
  headers: { 'x-site': 'north', accept: 'application/json' },
  upstream: { host: 'lab.internal', port: 8080, secure: true, password: PASSWORD_MASK },
  servers: [
    { host: 'a.internal', port: 1, secure: false, password: PASSWORD_MASK },
    { host: 'b.internal', port: 2, secure: true, password: PASSWORD_MASK },
  ],
  ports: [80, 443],
  tags: ['lab', ''],
  levels: ['high'],
};

function array(draft: Draft | undefined): ArrayDraft {
  if (draft === null || typeof draft !== 'object' || draft.kind !== 'array') throw new Error('not a list draft');
  return draft;
}

function map(draft: Draft | undefined): MapDraft {
  if (draft === null || typeof draft !== 'object' || draft.kind !== 'map') throw new Error('not a map draft');
  return draft;
}

function struct(draft: Draft | undefined): StructDraft {
  if (draft === null || typeof draft !== 'object' || draft.kind !== 'struct') throw new Error('not a struct draft');
  return draft;
}

describe('config -> drafts -> config', () => {
  it('gives back the same configuration, stored passwords as the mask, with no problems', () => {
    expect(fromDrafts(DEFS, toDrafts(DEFS, CONFIG))).toEqual({ config: CONFIG, problems: {} });
  });

  it('keeps empty maps, structs and lists that were set, and leaves out those that were not', () => {
    const set = { headers: {}, upstream: {}, servers: [], ports: [] };
    expect(fromDrafts(DEFS, toDrafts(DEFS, set)).config).toEqual(set);
    expect(fromDrafts(DEFS, toDrafts(DEFS, {}))).toEqual({ config: {}, problems: {} });
  });

  it('leaves out a parameter that was not set, and one the definitions do not name', () => {
    expect(fromDrafts(DEFS, toDrafts(DEFS, { name: 'only', unknown: 'dropped' })).config).toEqual({ name: 'only' });
  });

  it('reads a stored value of the wrong type as "not set" instead of showing it in the wrong input', () => {
    const drafts = toDrafts(DEFS, { timeoutSeconds: '10', verbose: 'yes', mode: 'turbo', name: 42, headers: ['a'], servers: { host: 'x' } });
    expect(drafts).toMatchObject({ timeoutSeconds: null, verbose: null, mode: null, name: null });
    expect(map(drafts.headers)).toMatchObject({ rows: [], wasSet: false });
    expect(array(drafts.servers)).toMatchObject({ items: [], wasSet: false });
    expect(fromDrafts(DEFS, drafts)).toEqual({ config: {}, problems: {} });
  });

  it('shows map values that are not text as text', () => {
    expect(map(toDraft({ param: 'm', type: 'map' }, { retries: 3, on: true })).rows.map(({ key, value }) => [key, value])).toEqual([
      ['retries', '3'],
      ['on', 'true'],
    ]);
  });
});

describe('numbers', () => {
  const defs: MediatorConfigDef[] = [{ param: 'limit', type: 'number' }];

  it('sends a number typed as text as a number', () => {
    for (const [typed, sent] of [['10', 10], [' 2.5 ', 2.5], ['-1', -1], ['1e3', 1000]] as const) expect(fromDrafts(defs, { limit: typed }).config, typed).toEqual({ limit: sent });
  });

  it('leaves an emptied number out', () => {
    expect(fromDrafts(defs, { limit: '  ' })).toEqual({ config: {}, problems: {} });
    expect(fromDrafts(defs, { limit: null })).toEqual({ config: {}, problems: {} });
  });

  it('names what is not a number, by its path', () => {
    for (const typed of ['ten', '1,5', 'Infinity']) expect(fromDrafts(defs, { limit: typed }), typed).toEqual({ config: {}, problems: { limit: 'Enter a number, such as 10 or 2.5.' } });
  });
});

describe('lists', () => {
  it('refuses an empty number or option item, which has no "not set"', () => {
    const drafts = toDrafts(DEFS, { ports: [80], levels: ['low'] });
    array(drafts.ports).items.push({ id: draftId(), origin: null, value: '' }, { id: draftId(), origin: null, value: null });
    array(drafts.levels).items.push({ id: draftId(), origin: null, value: null });
    expect(fromDrafts(DEFS, drafts).problems).toEqual({
      'ports.1': 'Enter a number, or remove this item.',
      'ports.2': 'Enter a number, or remove this item.',
      'levels.1': 'Choose a value, or remove this item.',
    });
  });

  it('keeps a stored password whose item is still at its stored index', () => {
    const drafts = toDrafts(DEFS, CONFIG);
    array(drafts.servers).items.pop();
    const { config, problems } = fromDrafts(DEFS, drafts);
    expect(problems).toEqual({});
    expect(config.servers).toEqual([{ host: 'a.internal', port: 1, secure: false, password: PASSWORD_MASK }]);
  });

  it('asks for a password again when an item moved, since the mask would keep the password of another item', () => {
    const drafts = toDrafts(DEFS, CONFIG);
    array(drafts.servers).items.shift();
    expect(fromDrafts(DEFS, drafts).problems).toEqual({
      'servers.0.password': 'Type this password again: the list changed above it, so the stored password cannot be matched to it.',
    });
  });

  it('accepts a moved item whose password was typed again', () => {
    const drafts = toDrafts(DEFS, CONFIG);
    const servers = array(drafts.servers);
    servers.items.reverse();
    for (const item of servers.items) struct(item.value).fields.password = 'typed-again';
    const { config, problems } = fromDrafts(DEFS, drafts);
    expect(problems).toEqual({});
    expect((config.servers as { host: string }[]).map((s) => s.host)).toEqual(['b.internal', 'a.internal']);
  });

  it('sends an added empty struct item as an object, so the item is not lost', () => {
    const drafts = toDrafts(DEFS, {});
    array(drafts.servers).items.push({ id: draftId(), origin: null, value: newItem(DEFS[8] as MediatorConfigDef) });
    expect(fromDrafts(DEFS, drafts)).toEqual({ config: { servers: [{}] }, problems: {} });
  });

  it('keeps a list item stored as something else as an empty struct or map, so no item disappears', () => {
    const defs: MediatorConfigDef[] = [
      { param: 'servers', type: 'struct', template: SERVER, array: true },
      { param: 'maps', type: 'map', array: true },
    ];
    expect(fromDrafts(defs, toDrafts(defs, { servers: [null, { host: 'a' }], maps: ['x'] }))).toEqual({ config: { servers: [{}, { host: 'a' }], maps: [{}] }, problems: {} });
  });
});

describe('maps', () => {
  const defs: MediatorConfigDef[] = [{ param: 'headers', type: 'map' }];

  it('names an empty key and a key used twice, by row', () => {
    const draft: MapDraft = {
      kind: 'map',
      rows: [
        { id: 'r1', key: 'accept', value: 'json' },
        { id: 'r2', key: '', value: 'x' },
        { id: 'r3', key: 'accept', value: 'xml' },
      ],
      wasSet: true,
    };
    expect(fromDrafts(defs, { headers: draft }).problems).toEqual({
      'headers#r2': 'Enter a key, or remove this entry.',
      'headers#r3': 'The key "accept" is used twice; keys must differ.',
    });
  });

  it('finds problems inside structs and lists by their full path', () => {
    const defs2: MediatorConfigDef[] = [{ param: 'servers', type: 'struct', array: true, template: [{ param: 'port', type: 'number' }, { param: 'extra', type: 'map' }] }];
    const drafts: Drafts = toDrafts(defs2, { servers: [{ port: 1, extra: { a: 'b' } }] });
    const item = struct(array(drafts.servers).items[0]?.value);
    item.fields.port = 'one';
    const extra = map(item.fields.extra);
    extra.rows.push({ id: 'dup', key: 'a', value: 'c' });
    expect(fromDrafts(defs2, drafts).problems).toEqual({ 'servers.0.port': 'Enter a number, such as 10 or 2.5.', 'servers.0.extra#dup': 'The key "a" is used twice; keys must differ.' });
  });
});

describe('new list items', () => {
  it('start as the empty value of their type', () => {
    expect(newItem({ param: 'p', type: 'string' })).toBe('');
    expect(newItem({ param: 'p', type: 'password' })).toBe('');
    expect(newItem({ param: 'p', type: 'bool' })).toBe(false);
    expect(newItem({ param: 'p', type: 'number' })).toBeNull();
    expect(newItem({ param: 'p', type: 'option', values: ['a', 'b'] })).toBe('a');
    expect(newItem({ param: 'p', type: 'option' })).toBeNull();
    expect(newItem({ param: 'p', type: 'map' })).toEqual({ kind: 'map', rows: [], wasSet: true });
    expect(newItem({ param: 'p', type: 'struct', template: SERVER })).toEqual({ kind: 'struct', fields: { host: null, port: null, secure: null, password: null }, wasSet: true });
  });

  it('get ids that differ from every other draft id', () => {
    const drafts = toDrafts(DEFS, CONFIG);
    const ids = [...map(drafts.headers).rows.map((r) => r.id), ...array(drafts.servers).items.map((i) => i.id), draftId(), draftId()];
    expect(new Set(ids).size).toBe(ids.length);
  });
});
