import { describe, expect, it } from 'vitest';
import { AA_TEXT, contrastRatio, mix, readable, relativeLuminance } from './contrast';

describe('contrast', () => {
  it('measures as WCAG does: black on white is 21, a colour on itself 1, and a known pair its published ratio', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#12b886', '#12b886')).toBe(1);
    // Mantine's gray 6 on white, which axe reported as 3.32.
    expect(contrastRatio('#868e96', '#ffffff')).toBeCloseTo(3.32, 2);
    expect(contrastRatio('#ffffff', '#868e96')).toBeCloseTo(3.32, 2);
    expect(relativeLuminance('#ffffff')).toBe(1);
  });

  it('mixes towards a target', () => {
    expect(mix('#000000', '#ffffff', 0.5)).toBe('#808080');
    expect(mix('#123456', '#000000', 0)).toBe('#123456');
  });

  it('picks the first candidate that reads on every background', () => {
    expect(readable(['#12b886', '#0ca678', '#099268', '#087f5b'], ['#ffffff'], 'dark')).toBe('#087f5b');
    const onTwo = readable(['#868e96', '#495057'], ['#ffffff', '#f1f3f5'], 'dark');
    expect(onTwo).toBe('#495057');
  });

  it('darkens (or lightens) the last candidate when none reads, keeping its hue', () => {
    const yellow = readable(['#fab005', '#e67700'], ['#fff3bf'], 'dark');
    expect(contrastRatio(yellow, '#fff3bf')).toBeGreaterThanOrEqual(AA_TEXT);
    expect(yellow).not.toBe('#000000');
    const onDark = readable(['#2e2e2e'], ['#242424'], 'light');
    expect(contrastRatio(onDark, '#242424')).toBeGreaterThanOrEqual(AA_TEXT);
  });

  it('refuses what is not a colour', () => {
    expect(() => contrastRatio('teal', '#ffffff')).toThrow(/rrggbb/);
  });
});
