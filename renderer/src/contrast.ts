/**
 * Colour contrast as WCAG 2.1 measures it (relative luminance, ratio 1 to 21), and the shade of a colour that reads
 * on given backgrounds: the theme derives its text, badge and button colours from these so that every colour the
 * console uses meets AA (4.5:1) in both colour schemes, whatever palette it starts from.
 */

/** WCAG 2.1 AA's minimum ratio for text of normal size. */
export const AA_TEXT = 4.5;

function channels(hex: string): [number, number, number] {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex.trim());
  if (m === null) throw new Error(`Not a #rrggbb colour: ${hex}`);
  const n = parseInt(m[1] ?? '', 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function toHex([r, g, b]: [number, number, number]): string {
  return `#${[r, g, b].map((c) => Math.round(Math.min(255, Math.max(0, c))).toString(16).padStart(2, '0')).join('')}`;
}

/** WCAG's relative luminance of a #rrggbb colour. */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = channels(hex).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The contrast ratio of two #rrggbb colours, from 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** Mixes `hex` towards `target` by `amount` (0 = unchanged, 1 = the target). */
export function mix(hex: string, target: string, amount: number): string {
  const a = channels(hex);
  const b = channels(target);
  return toHex([0, 1, 2].map((i) => a[i]! + (b[i]! - a[i]!) * amount) as [number, number, number]);
}

/**
 * The first of `candidates` that reaches `ratio` against every background; when none does, the last one moved
 * towards black (`towards: 'dark'`) or white until it does, so the hue stays and only the lightness gives way.
 */
export function readable(candidates: readonly string[], backgrounds: readonly string[], towards: 'dark' | 'light', ratio = AA_TEXT): string {
  const passes = (c: string) => backgrounds.every((bg) => contrastRatio(c, bg) >= ratio);
  const found = candidates.find(passes);
  if (found !== undefined) return found;
  const last = candidates[candidates.length - 1];
  if (last === undefined) throw new Error('readable() needs at least one candidate');
  const target = towards === 'dark' ? '#000000' : '#ffffff';
  for (let step = 1; step <= 20; step++) {
    const moved = mix(last, target, step / 20);
    if (passes(moved)) return moved;
  }
  return target;
}
