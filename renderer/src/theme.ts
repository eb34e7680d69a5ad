import { createTheme, DEFAULT_THEME, Modal, TableScrollContainer } from '@mantine/core';
import type { CSSVariablesResolver, MantineColorsTuple } from '@mantine/core';
import { mix, readable } from './contrast';

export const theme = createTheme({
  primaryColor: 'teal',
  defaultRadius: 'sm',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  fontFamilyMonospace: 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace',
  // A focus ring on every control reached by keyboard (:focus-visible), in the accent, which the resolver below
  // keeps at 4.5:1 on both schemes. Stated, not left to the default, because keyboard use depends on it.
  focusRing: 'auto',
  components: {
    // Mantine's close button is an icon with no name of its own; screen readers and keyboard users need one.
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close dialog' } } }),
    // A wide table scrolls sideways in a narrow or zoomed window; a keyboard can only scroll what it can focus, and a
    // table of plain text has nothing focusable inside (WCAG 2.1.1).
    TableScrollContainer: TableScrollContainer.extend({ defaultProps: { scrollAreaProps: { viewportProps: { tabIndex: 0 } } } }),
  },
});

const WHITE = '#ffffff';
const gray = DEFAULT_THEME.colors.gray;
const dark = DEFAULT_THEME.colors.dark;
/** What text sits on in the light scheme: the page, Paper, and the grey of table stripes, code and hovered rows. */
const LIGHT_SURFACES = [WHITE, gray[0], gray[1]];
/** The same in the dark scheme: the page (dark 7), Paper and inputs (dark 6), hovered rows (dark 5), the header (dark 8). */
const DARK_SURFACES = [dark[7], dark[6], dark[5], dark[8]];

/**
 * Mantine's default palette, shades 6 and up, is too light for text on white (teal 6 is 2.5:1, gray 6 3.3:1), and
 * its dark scheme's accents too dark on dark grey. Rather than pick colours page by page, every colour's text,
 * filled, outline and light-variant values are derived here to reach WCAG AA (4.5:1) against the surfaces they sit
 * on, each starting from Mantine's own shade and giving only as much lightness as the ratio needs.
 */
function colourVariables(name: string, shades: MantineColorsTuple, scheme: 'light' | 'dark'): Record<string, string> {
  if (scheme === 'light') {
    // Text and outlines read on white and light grey; a filled button's white label reads on its fill.
    const text = readable([shades[6]], [...LIGHT_SURFACES, shades[0]], 'dark');
    const filled = readable([shades[6]], [WHITE], 'dark');
    const lightColor = readable([shades[9]], [shades[1], shades[2]], 'dark');
    return {
      [`--mantine-color-${name}-text`]: text,
      [`--mantine-color-${name}-filled`]: filled,
      // Hovered (and still hovered after a click), a button darkens: its label only gains contrast.
      [`--mantine-color-${name}-filled-hover`]: mix(filled, '#000000', 0.12),
      [`--mantine-color-${name}-light-color`]: lightColor,
      [`--mantine-color-${name}-outline`]: text,
    };
  }
  const text = readable([shades[4]], DARK_SURFACES, 'light');
  const filled = readable([shades[8]], [WHITE], 'dark');
  return {
    [`--mantine-color-${name}-text`]: text,
    [`--mantine-color-${name}-filled`]: filled,
    [`--mantine-color-${name}-filled-hover`]: mix(filled, '#000000', 0.12),
    [`--mantine-color-${name}-outline`]: text,
  };
}

function schemeVariables(scheme: 'light' | 'dark'): Record<string, string> {
  const colours = Object.entries(DEFAULT_THEME.colors).flatMap(([name, shades]) => Object.entries(colourVariables(name, shades, scheme)));
  const primary = DEFAULT_THEME.colors[theme.primaryColor ?? 'teal'] ?? DEFAULT_THEME.colors.teal;
  const surfaces = scheme === 'light' ? LIGHT_SURFACES : DARK_SURFACES;
  const towards = scheme === 'light' ? 'dark' : 'light';
  return {
    ...Object.fromEntries(colours),
    // Secondary text stays grey, just dark (or light) enough.
    '--mantine-color-dimmed': readable([scheme === 'light' ? gray[6] : dark[2]], surfaces, towards),
    '--mantine-color-error': readable([scheme === 'light' ? DEFAULT_THEME.colors.red[6] : DEFAULT_THEME.colors.red[4]], surfaces, towards),
    '--mantine-color-anchor': readable([scheme === 'light' ? primary[6] : primary[4]], surfaces, towards),
    // Placeholders are hints, not labels, but they still need to be read.
    '--mantine-color-placeholder': readable([scheme === 'light' ? gray[5] : dark[3]], surfaces, towards),
  };
}

/** The theme's CSS variables for both colour schemes, each meeting WCAG 2.1 AA contrast. */
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: schemeVariables('light'),
  dark: schemeVariables('dark'),
});
