import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ICON_FILES, PNG_SIGNATURE, TEAL, crc32, renderIcon } from '../../scripts/icons.js';

interface Png {
  width: number;
  height: number;
  bitDepth: number;
  colourType: number;
  pixels: Buffer;
}

/** Reads a PNG the way a viewer would: signature, chunks with their CRCs, IHDR, the inflated rows. */
function decode(file: Buffer): Png {
  expect(file.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  let offset = 8;
  let header: Buffer | null = null;
  const data: Buffer[] = [];
  let ended = false;
  while (offset < file.length) {
    const length = file.readUInt32BE(offset);
    const type = file.subarray(offset + 4, offset + 8).toString('latin1');
    const body = file.subarray(offset + 8, offset + 8 + length);
    expect(file.readUInt32BE(offset + 8 + length), `CRC of ${type}`).toBe(crc32(file.subarray(offset + 4, offset + 8 + length)));
    if (type === 'IHDR') header = body;
    if (type === 'IDAT') data.push(body);
    if (type === 'IEND') ended = true;
    offset += 12 + length;
  }
  expect(ended).toBe(true);
  if (header === null) throw new Error('no IHDR');
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const rows = inflateSync(Buffer.concat(data));
  expect(rows.length).toBe(height * (width * 4 + 1));
  const pixels = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    expect(rows[y * (width * 4 + 1)], 'filter type').toBe(0);
    rows.copy(pixels, y * width * 4, y * (width * 4 + 1) + 1, (y + 1) * (width * 4 + 1));
  }
  return { width, height, bitDepth: header[8]!, colourType: header[9]!, pixels };
}

function pixel(png: Png, x: number, y: number): number[] {
  const offset = (y * png.width + x) * 4;
  return [...png.pixels.subarray(offset, offset + 4)];
}

describe('the icons in assets/icons', () => {
  it('are real RGBA PNGs of the expected sizes, exactly as scripts/icons.ts draws them', async () => {
    for (const { name, size, style } of ICON_FILES) {
      const png = decode(await readFile(join('assets', 'icons', name)));
      expect({ name, width: png.width, height: png.height, bitDepth: png.bitDepth, colourType: png.colourType }).toEqual({
        name,
        width: size,
        height: size,
        bitDepth: 8,
        colourType: 6,
      });
      expect(png.pixels.equals(renderIcon(size, style)), `${name} matches the generator`).toBe(true);
    }
  });

  it('draw a teal rounded square with a white mark, transparent corners (app icon 512x512)', async () => {
    const png = decode(await readFile(join('assets', 'icons', 'icon.png')));
    expect(pixel(png, 0, 0)[3]).toBe(0);
    expect(pixel(png, 60, 60)[3]).toBe(0);
    expect(pixel(png, 256, 470)).toEqual([...TEAL, 255]);
    // The stem of the J runs down the middle right.
    expect(pixel(png, Math.round(0.6 * 512), Math.round(0.45 * 512))).toEqual([255, 255, 255, 255]);
    const white = [...Array(512 * 512).keys()].filter((i) => png.pixels[i * 4] === 255 && png.pixels[i * 4 + 3] === 255).length;
    expect(white / (512 * 512)).toBeGreaterThan(0.05);
    expect(white / (512 * 512)).toBeLessThan(0.25);
  });

  it('give macOS a template tray image: black, shape in the alpha channel', async () => {
    const png = decode(await readFile(join('assets', 'icons', 'trayTemplate@2x.png')));
    const opaque = [...Array(32 * 32).keys()].filter((i) => png.pixels[i * 4 + 3]! > 0);
    expect(opaque.length).toBeGreaterThan(50);
    for (const i of opaque) expect([...png.pixels.subarray(i * 4, i * 4 + 3)]).toEqual([0, 0, 0]);
    expect(pixel(png, 0, 0)[3]).toBe(0);
  });
});
