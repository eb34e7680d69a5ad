/**
 * Writes Junction's icons to assets/icons/ (the app icon electron-builder turns into .ico/.icns, and the tray icons).
 * Run after a build: `npx tsc -p tsconfig.build.json && node dist/scripts/generate-icons.js`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ICON_FILES, encodePng, renderIcon } from './icons.js';

const dir = join(process.cwd(), 'assets', 'icons');
mkdirSync(dir, { recursive: true });
for (const { name, size, style } of ICON_FILES) {
  const png = encodePng(size, renderIcon(size, style));
  writeFileSync(join(dir, name), png);
  process.stdout.write(`${join('assets', 'icons', name)}: ${size}x${size}, ${png.length} bytes\n`);
}
