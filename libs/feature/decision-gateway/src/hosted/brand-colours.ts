/**
 * Colours of an application's brand on the hosted pages, kept at WCAG 2.2 AA contrast whatever
 * colour the application chose.
 *
 * - Text on the brand colour (filled buttons) is black or white, whichever contrasts more. For
 *   any sRGB colour the better of the two reaches at least 4.58:1 (the worst case is a colour of
 *   relative luminance √0.0525 − 0.05 ≈ 0.179, equally far from both), above AA's 4.5:1, so no
 *   brand colour has to be refused: the page adapts.
 * - Where the brand colour itself is drawn on the white page (outlined buttons, links, checkbox
 *   accent), a darker shade of it is used when needed, mixed towards black until it reaches
 *   4.5:1 against white.
 */

const WHITE = '#ffffff';
const BLACK = '#000000';

/** The neutral brand of the pages when the application has none. */
export const DEFAULT_BRAND = '#0b57d0';

function channels(hex: string): [number, number, number] {
  const value = /^#([0-9a-f]{6})$/i.exec(hex)?.[1];
  if (!value) throw new Error(`not a #rrggbb colour: ${hex}`);
  return [0, 2, 4].map((i) => parseInt(value.slice(i, i + 2), 16)) as [number, number, number];
}

function toHex(rgb: readonly number[]): string {
  return `#${rgb
    .map((c) =>
      Math.round(Math.max(0, Math.min(255, c)))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

/** WCAG 2.2 relative luminance of a `#rrggbb` colour (0 black … 1 white). */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = channels(hex).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two colours (1 … 21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** Text colour on a brand-coloured surface: black or white, whichever contrasts more (always ≥ 4.5:1). */
export function textOn(background: string): string {
  return contrastRatio(background, BLACK) >= contrastRatio(background, WHITE) ? BLACK : WHITE;
}

/** The brand colour, darkened towards black as little as needed to reach `minimum`:1 against white. */
export function inkOnWhite(brand: string, minimum = 4.5): string {
  const rgb = channels(brand);
  for (let step = 0; step <= 100; step += 2) {
    const shade = toHex(rgb.map((c) => c * (1 - step / 100)));
    if (contrastRatio(shade, WHITE) >= minimum) return shade;
  }
  return BLACK;
}

/** The page's colour set for a brand colour (null: the neutral default). */
export interface BrandPalette {
  brand: string;
  onBrand: string;
  ink: string;
}

export function brandPalette(brandColor: string | null): BrandPalette {
  const brand = brandColor ?? DEFAULT_BRAND;
  return { brand, onBrand: textOn(brand), ink: inkOnWhite(brand) };
}
