/**
 * Keeps service/README.md's code map true: every folder it lists exists, every folder of the service is listed,
 * and each folder imports only what its "may import" cell allows. A new dependency between folders therefore
 * means a deliberate edit of the map, where a reviewer sees it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SERVICE = resolve(__dirname, '../../service');

interface Rule {
  folder: string;
  allowed: Set<string>;
  typesOnly: Set<string>;
}

/** Reads the map's table: folder, description, and the folders it may import (backticked). */
function rulesOfMap(): Rule[] {
  const text = readFileSync(join(SERVICE, 'README.md'), 'utf8');
  const rows = text.split('\n').filter((line) => /^\| `[a-z/]+\/` \|/.test(line));
  const rules: Rule[] = [];
  for (const row of rows) {
    const cells = row.split(' | ');
    const folder = /`([a-z/]+)\/`/.exec(cells[0] ?? '')?.[1] ?? '';
    const cell = (cells.at(-1) ?? '').replace(/\|\s*$/, '');
    const allowed = new Set<string>();
    const typesOnly = new Set<string>();
    if (cell.includes('everything above')) for (const earlier of rules) allowed.add(earlier.folder);
    for (const m of cell.matchAll(/(types of )?`([a-z/]+)\/`/g)) {
      const target = m[2] ?? '';
      if (m[1] === undefined) allowed.add(target);
      else typesOnly.add(target);
    }
    rules.push({ folder, allowed, typesOnly });
  }
  return rules;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

function serviceFolders(dir = SERVICE): string[] {
  return readdirSync(dir)
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isDirectory())
    .flatMap((path) => [relative(SERVICE, path).split(sep).join('/'), ...serviceFolders(path)]);
}

/** The map's folder a service file belongs to: the longest listed folder that contains it. */
function ownerOf(file: string, folders: readonly string[]): string | undefined {
  const rel = relative(SERVICE, file).split(sep).join('/');
  return folders.filter((f) => rel.startsWith(`${f}/`)).sort((a, b) => b.length - a.length)[0];
}

interface ImportLine {
  target: string;
  typeOnly: boolean;
}

function importsOf(file: string): ImportLine[] {
  const text = readFileSync(file, 'utf8');
  const found: ImportLine[] = [];
  for (const m of text.matchAll(/^(import|export)( type)?\b[^;]*?from '(\.[^']+)';/gms)) {
    found.push({ target: resolve(dirname(file), m[3] ?? ''), typeOnly: m[2] !== undefined });
  }
  for (const m of text.matchAll(/import\('(\.[^']+)'\)/g)) found.push({ target: resolve(dirname(file), m[1] ?? ''), typeOnly: false });
  return found;
}

describe('service/README.md code map', () => {
  const rules = rulesOfMap();
  const listed = rules.map((r) => r.folder);

  it('lists every top-level folder of the service, and only folders that exist', () => {
    expect(listed.length).toBeGreaterThan(10);
    const folders = serviceFolders();
    expect(folders.filter((f) => !f.includes('/') && !listed.includes(f))).toEqual([]);
    expect(listed.filter((f) => !folders.includes(f))).toEqual([]);
  });

  it('each folder imports only what its row allows (and only types where it says "types of")', () => {
    const breaches: string[] = [];
    for (const file of sourceFiles(SERVICE)) {
      const owner = ownerOf(file, listed);
      if (owner === undefined) continue; // the service's root files (app.ts, index.ts, errors.ts, ...)
      const rule = rules.find((r) => r.folder === owner);
      if (rule === undefined) continue;
      for (const line of importsOf(file)) {
        if (!line.target.startsWith(SERVICE + sep)) continue;
        const target = ownerOf(line.target, listed);
        // Root files: errors.ts and refusals.ts are everyone's; any other root file is the composition root's own.
        if (target === undefined) {
          const name = relative(SERVICE, line.target);
          if (!['errors.js', 'refusals.js'].includes(name) || owner === 'contracts') breaches.push(`${relative(SERVICE, file)} -> ${name}`);
          continue;
        }
        if (target === owner) continue;
        if (rule.allowed.has(target)) continue;
        if (rule.typesOnly.has(target) && line.typeOnly) continue;
        breaches.push(`${relative(SERVICE, file)} -> ${target}/${line.typeOnly ? ' (types)' : ''}`);
      }
    }
    expect(breaches).toEqual([]);
  });
});
