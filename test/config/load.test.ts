import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../service/config/index.js';
import { jsonErrorLocation } from '../../service/config/json-location.js';
import { configError, tempFiles } from './helpers.js';

const files = tempFiles();
const valid = files.write('junction.json', JSON.stringify({ api: { port: 9001 }, dataDir: '/srv/junction' }));
const other = files.write('other.json', JSON.stringify({ api: { port: 9002 } }));

describe('choosing the config file', () => {
  it('reads --config <path>', () => {
    const loaded = loadConfig({ argv: ['--config', valid], env: {} });
    expect(loaded.config.api.port).toBe(9001);
    expect(loaded.config.dataDir).toBe('/srv/junction');
    expect(loaded.configFile).toBe(valid);
  });

  it('reads --config=<path>', () => {
    const loaded = loadConfig({ argv: ['--verbose', `--config=${valid}`], env: {} });
    expect(loaded.config.api.port).toBe(9001);
    expect(loaded.configFile).toBe(valid);
  });

  it('reads JUNCTION_CONFIG when there is no --config, without warning about it', () => {
    const loaded = loadConfig({ argv: [], env: { JUNCTION_CONFIG: valid } });
    expect(loaded.config.api.port).toBe(9001);
    expect(loaded.configFile).toBe(valid);
    expect(loaded.warnings).toEqual([]);
  });

  it('prefers --config over JUNCTION_CONFIG, and the last --config over earlier ones', () => {
    expect(loadConfig({ argv: ['--config', valid], env: { JUNCTION_CONFIG: other } }).config.api.port).toBe(9001);
    expect(loadConfig({ argv: ['--config', valid, `--config=${other}`], env: {} }).config.api.port).toBe(9002);
  });

  it('reports the path as absolute when given relative', () => {
    const relativePath = join('.', 'test-does-not-exist.json');
    const err = configError(() => loadConfig({ argv: ['--config', relativePath], env: {} }));
    expect(err.problems[0]).toContain(resolve(relativePath));
  });

  it('uses defaults and the environment when no file is named', () => {
    const loaded = loadConfig({ argv: [], env: { JUNCTION_API_PORT: '9003' } });
    expect(loaded.config.api.port).toBe(9003);
    expect(loaded.configFile).toBeUndefined();
  });

  it('applies the environment over the file', () => {
    expect(loadConfig({ argv: ['--config', valid], env: { JUNCTION_API_PORT: '9004' } }).config.api.port).toBe(9004);
  });

  it('refuses --config without a path', () => {
    expect(configError(() => loadConfig({ argv: ['--config'], env: {} })).problems).toEqual([
      '--config needs a file path, e.g. --config /etc/junction.json',
    ]);
    expect(configError(() => loadConfig({ argv: ['--config='], env: {} })).problems[0]).toMatch(/^--config needs a file path/);
  });
});

describe('reading the config file', () => {
  it('names a missing file and what named it', () => {
    const missing = join(files.dir, 'missing.json');
    expect(configError(() => loadConfig({ argv: [], env: { JUNCTION_CONFIG: missing } })).problems).toEqual([
      `cannot read the configuration file ${missing} (from JUNCTION_CONFIG): the file does not exist`,
    ]);
    expect(configError(() => loadConfig({ argv: ['--config', missing], env: {} })).problems).toEqual([
      `cannot read the configuration file ${missing} (from --config): the file does not exist`,
    ]);
  });

  it('names the file, line and column of a JSON syntax error', () => {
    const broken = files.write('broken.json', '{\n  "api": {\n    "port": 8080\n    "host": "0.0.0.0"\n  }\n}\n');
    const err = configError(() => loadConfig({ argv: ['--config', broken], env: {} }));
    expect(err.problems).toHaveLength(1);
    expect(err.problems[0]).toMatch(new RegExp(`^${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON at line 4, column 5: `));
  });

  it('gives a line and column even where JSON.parse reports none', () => {
    const trailing = files.write('trailing.json', '{\n  "api": {\n    "port": }\n}\n');
    const err = configError(() => loadConfig({ argv: ['--config', trailing], env: {} }));
    expect(err.problems[0]).toContain('is not valid JSON at line 3, column 13');
    expect(err.problems[0]).not.toContain('"port"');
  });

  it('validates the parsed file, naming it in problems', () => {
    const bad = files.write('bad.json', JSON.stringify({ api: { port: 'http' } }));
    expect(configError(() => loadConfig({ argv: ['--config', bad], env: {} })).problems).toEqual([
      `api.port (in ${bad}): must be an integer between 1 and 65535, not "http"`,
    ]);
  });

  it('accepts a UTF-8 byte-order mark, as Windows editors write', () => {
    const bom = files.write('bom.json', '\uFEFF{"api": {"port": 9005}}');
    expect(loadConfig({ argv: ['--config', bom], env: {} }).config.api.port).toBe(9005);
  });
});

describe('jsonErrorLocation', () => {
  it.each([
    ['{"a": 1}', undefined],
    ['[1, "x", true, false, null, {"b": [-1.5e3]}]', undefined],
    ['', { line: 1, column: 1 }],
    ['{"a": }', { line: 1, column: 7 }],
    ['{"a": 1,}', { line: 1, column: 9 }],
    ['{"a" 1}', { line: 1, column: 6 }],
    ['{"a": tru}', { line: 1, column: 7 }],
    ['{"a": 1', { line: 1, column: 8 }],
    ['{"a": 01}', { line: 1, column: 8 }],
    ['{"a": "x\\q"}', { line: 1, column: 9 }],
    ['{"a": 1} x', { line: 1, column: 10 }],
    ['{\n  "a": 1\n  "b": 2\n}', { line: 3, column: 3 }],
  ])('%j -> %j', (text, location) => {
    expect(jsonErrorLocation(text)).toEqual(location);
  });
});
