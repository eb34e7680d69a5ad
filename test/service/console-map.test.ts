/**
 * Keeps renderer/README.md's code map true, as code-map.test.ts does for the service: every folder it lists exists,
 * every folder of the console is listed, each folder imports only what its "may import" cell allows, the console
 * reaches into the service only for service/contracts/ (wire types and their constants), no area of the console
 * imports another area's files (what two areas share lives in a lower folder), and every area is routed.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const RENDERER = resolve(__dirname, '../../renderer');
const SRC = join(RENDERER, 'src');
const CONTRACTS = resolve(__dirname, '../../service/contracts');

interface Rule {
  folder: string;
  allowed: Set<string>;
}

/** Reads the map's table of folders: `src/<folder>/`, what it holds, and the folders it may import (backticked). */
function rulesOfMap(): Rule[] {
  const text = readFileSync(join(RENDERER, 'README.md'), 'utf8');
  const rows = text.split('\n').filter((line) => /^\| `src\/[a-z-]+\/` \|/.test(line));
  return rows.map((row) => {
    const cells = row.split(' | ');
    const folder = /`src\/([a-z-]+)\/`/.exec(cells[0] ?? '')?.[1] ?? '';
    const cell = (cells.at(-1) ?? '').replace(/\|\s*$/, '');
    const allowed = new Set<string>();
    for (const m of cell.matchAll(/`src\/([a-z-]+)\/`/g)) allowed.add(m[1] ?? '');
    return { folder, allowed };
  });
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

const rel = (path: string): string => relative(SRC, path).split(sep).join('/');

/** The files a source file imports by relative path (static imports, re-exports and dynamic imports). */
function importsOf(file: string): { target: string }[] {
  const text = readFileSync(file, 'utf8');
  const found: { target: string }[] = [];
  for (const m of text.matchAll(/^(import|export)( type)?\b[^;]*?from '(\.[^']+)';/gms)) found.push({ target: resolve(dirname(file), m[3] ?? '') });
  for (const m of text.matchAll(/import\('(\.[^']+)'\)/g)) found.push({ target: resolve(dirname(file), m[1] ?? '') });
  return found;
}

describe('renderer/README.md code map', () => {
  const rules = rulesOfMap();
  const listed = rules.map((r) => r.folder);
  const files = sourceFiles(SRC);

  it('lists every folder of the console, and only folders that exist', () => {
    expect(listed.length).toBeGreaterThanOrEqual(5);
    const folders = readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isDirectory());
    expect(folders.filter((f) => !listed.includes(f))).toEqual([]);
    expect(listed.filter((f) => !folders.includes(f))).toEqual([]);
  });

  it('each folder imports only what its row allows; only the root files (App, routes, main) import anything', () => {
    const breaches: string[] = [];
    for (const file of files) {
      const owner = rel(file).split('/')[0] ?? '';
      const rule = rules.find((r) => r.folder === owner);
      if (rule === undefined) continue; // the root files: the entry point, the sign-in gates, the list of areas
      for (const line of importsOf(file)) {
        if (!line.target.startsWith(SRC + sep)) continue;
        const target = rel(line.target).split('/');
        if (target.length === 1) breaches.push(`${rel(file)} -> ${target[0] ?? ''} (a root file)`);
        else if (target[0] !== owner && !rule.allowed.has(target[0] ?? '')) breaches.push(`${rel(file)} -> ${target[0] ?? ''}/`);
      }
    }
    expect(breaches).toEqual([]);
  });

  it('no area of the console imports another area', () => {
    const breaches: string[] = [];
    for (const file of files.filter((f) => rel(f).startsWith('pages/'))) {
      const area = rel(file).split('/')[1];
      for (const line of importsOf(file)) {
        const target = rel(line.target).split('/');
        if (target[0] === 'pages' && target[1] !== area) breaches.push(`${rel(file)} -> pages/${target[1] ?? ''}/`);
      }
    }
    expect(breaches).toEqual([]);
  });

  it('reaches into the service only for service/contracts/ (the wire types and their constants)', () => {
    const breaches: string[] = [];
    for (const file of files) {
      for (const line of importsOf(file)) {
        if (line.target.startsWith(SRC + sep)) continue;
        if (!line.target.startsWith(CONTRACTS + sep)) breaches.push(`${rel(file)} -> ${relative(RENDERER, line.target)}`);
      }
    }
    expect(breaches).toEqual([]);
  });

  it('each area exports its routes and navigation entry from pages/<area>/area.tsx, and routes.tsx lists every area', () => {
    const areas = readdirSync(join(SRC, 'pages')).filter((name) => statSync(join(SRC, 'pages', name)).isDirectory());
    const routes = readFileSync(join(SRC, 'routes.tsx'), 'utf8');
    const withArea = areas.filter((a) => statSync(join(SRC, 'pages', a, 'area.tsx'), { throwIfNoEntry: false }) !== undefined);
    // The sign-in pages come before the router (App.tsx's gates), so they are the one area without routes.
    expect(areas.filter((a) => !withArea.includes(a))).toEqual(['signin']);
    expect(withArea.filter((a) => !routes.includes(`from './pages/${a}/area'`))).toEqual([]);
  });
});
