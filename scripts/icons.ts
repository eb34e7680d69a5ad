/**
 * Junction's icons, drawn in code: a teal rounded square with a white "J" whose top bar meets the stem at a round
 * node, a junction. Shapes are signed distance fields, so every size is anti-aliased; PNGs are encoded with zlib.
 * `scripts/generate-icons.ts` writes them to assets/icons/.
 */
import { deflateSync } from 'node:zlib';

export interface IconStyle {
  /** Transparent border around the square, as a fraction of the size. */
  margin: number;
  /** Corner radius of the square, as a fraction of the size. */
  radius: number;
  /** Width of the J's strokes, as a fraction of the size. */
  stroke: number;
  /** Draw the square (false: the mark alone, for a macOS template image). */
  background: boolean;
  /** Colour of the mark, RGB. */
  mark: [number, number, number];
}

export const TEAL: [number, number, number] = [0x0f, 0x8b, 0x8d];
const WHITE: [number, number, number] = [0xff, 0xff, 0xff];
const BLACK: [number, number, number] = [0, 0, 0];

export const APP_ICON: IconStyle = { margin: 0.08, radius: 0.2, stroke: 0.09, background: true, mark: WHITE };
export const TRAY_ICON: IconStyle = { margin: 0, radius: 0.22, stroke: 0.14, background: true, mark: WHITE };
export const TRAY_TEMPLATE: IconStyle = { margin: 0, radius: 0, stroke: 0.14, background: false, mark: BLACK };

/** The files under assets/icons: name, pixel size and style. */
export const ICON_FILES: ReadonlyArray<{ name: string; size: number; style: IconStyle }> = [
  { name: 'icon.png', size: 512, style: APP_ICON },
  { name: 'tray.png', size: 16, style: TRAY_ICON },
  { name: 'tray@2x.png', size: 32, style: TRAY_ICON },
  { name: 'trayTemplate.png', size: 16, style: TRAY_TEMPLATE },
  { name: 'trayTemplate@2x.png', size: 32, style: TRAY_TEMPLATE },
];

type Point = [number, number];

function segmentDistance(p: Point, a: Point, b: Point): number {
  const [px, py] = [p[0] - a[0], p[1] - a[1]];
  const [bx, by] = [b[0] - a[0], b[1] - a[1]];
  const t = Math.max(0, Math.min(1, (px * bx + py * by) / (bx * bx + by * by)));
  return Math.hypot(px - bx * t, py - by * t);
}

/** Distance to the lower half of a circle (y grows downwards). */
function lowerArcDistance(p: Point, centre: Point, r: number): number {
  const dx = p[0] - centre[0];
  const dy = p[1] - centre[1];
  if (dy >= 0) return Math.abs(Math.hypot(dx, dy) - r);
  return Math.min(Math.hypot(dx - r, dy), Math.hypot(dx + r, dy));
}

function roundedSquareDistance(p: Point, margin: number, radius: number): number {
  const half = 0.5 - margin;
  const qx = Math.abs(p[0] - 0.5) - (half - radius);
  const qy = Math.abs(p[1] - 0.5) - (half - radius);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - radius;
}

/** Signed distance (in units of the icon size) to the J mark: negative inside. */
function markDistance(p: Point, stroke: number): number {
  const bar = segmentDistance(p, [0.33, 0.29], [0.71, 0.29]);
  const stem = segmentDistance(p, [0.6, 0.29], [0.6, 0.57]);
  const hook = lowerArcDistance(p, [0.45, 0.57], 0.15);
  const node = Math.hypot(p[0] - 0.6, p[1] - 0.29) - stroke * 0.95;
  return Math.min(Math.min(bar, stem, hook) - stroke / 2, node);
}

/** RGBA pixels, row by row, of the icon at `size` × `size`. */
export function renderIcon(size: number, style: IconStyle): Buffer {
  const pixels = Buffer.alloc(size * size * 4);
  const coverage = (distance: number) => Math.max(0, Math.min(1, 0.5 - distance * size));
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const p: Point = [(x + 0.5) / size, (y + 0.5) / size];
      const mark = coverage(markDistance(p, style.stroke));
      const square = style.background ? coverage(roundedSquareDistance(p, style.margin, style.radius)) : 0;
      // The mark sits on the square; without a square the mark's own coverage is the alpha.
      const alpha = style.background ? square : mark;
      const blend = style.background ? mark : 1;
      const offset = (y * size + x) * 4;
      for (let c = 0; c < 3; c++) {
        const base = style.background ? TEAL[c]! : style.mark[c]!;
        pixels[offset + c] = Math.round(base + (style.mark[c]! - base) * blend);
      }
      pixels[offset + 3] = Math.round(alpha * 255);
    }
  }
  return pixels;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 as PNG chunks use it. */
export function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** An 8-bit RGBA PNG of `pixels` (no filtering: each row starts with filter type 0). */
export function encodePng(size: number, pixels: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type: RGBA
  // compression, filter and interlace methods: all 0
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) pixels.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(rows, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}
