// The pictures' colours (timelines, the retry-gap histogram): SVG presentation attributes, never a
// style attribute (the dashboard's content security policy forbids inline styles). Every colour that
// draws a mark or a word reads at WCAG AA for text (4.5:1) on the paper and on each band it may
// cross; test/timeline.test.ts measures them with `contrast` below.

export const COLOR = {
  /** The picture's own background: it draws the same on a light or a dark page. */
  paper: '#ffffff',
  ink: '#1d2330',
  muted: '#545d6e',
  rule: '#c9ced8',
  arrival: '#1f4e99',
  written: '#17603a',
  held: '#7a4f00',
  heldBand: '#fbe7bd',
  forced: '#6b3fa0',
  dropped: '#b3261e',
  timeout: '#8a3b12',
  timeoutBand: '#f6e1d6',
  gap: '#3b4a63',
  gapBand: '#dde3ee',
  windowBand: '#dcefe2',
  decided: '#9b1c1c',
  bar: '#1f4e99',
} as const;

/** A halo of paper around the words drawn over lines and bands (an SVG attribute, not a style). */
export const HALO = ` stroke="${COLOR.paper}" stroke-width="3" stroke-linejoin="round" paint-order="stroke"`;

/** Colours that draw marks or words. */
export const INKS = ['ink', 'muted', 'arrival', 'written', 'held', 'forced', 'dropped', 'timeout', 'gap', 'decided', 'bar'] as const;
/** What they are drawn on: the paper and the bands. */
export const GROUNDS = ['paper', 'heldBand', 'timeoutBand', 'gapBand', 'windowBand'] as const;

/** WCAG 2's relative luminance of a #rrggbb colour. */
export function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** WCAG 2's contrast ratio of two #rrggbb colours (1 to 21). */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}
