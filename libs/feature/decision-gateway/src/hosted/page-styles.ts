import type { BrandPalette } from './brand-colours';

/**
 * Stylesheet of the hosted pages, sent inline under the CSP nonce. Mobile first (one column,
 * 44 px touch targets), a visible focus ring for keyboard users, and colours at WCAG AA contrast.
 * The brand colour arrives as custom properties (`brandStyles`); without them the neutral blue
 * applies, so pages that do not brand keep today's look.
 */
export const PAGE_STYLES = `
*,*::before,*::after{box-sizing:border-box}
[hidden]{display:none !important}
:root{--brand:#0b57d0;--on-brand:#fff;--brand-ink:#0b57d0}
html{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK JP","Hiragino Sans",sans-serif;color:#1b1f24;background:#f6f7f9}
body{margin:0}
main{max-width:40rem;margin:0 auto;padding:1.25rem;background:#fff;min-height:100vh;border-top:6px solid var(--brand)}
@media (min-width:48rem){main{margin:2rem auto;min-height:0;border:1px solid #d8dce1;border-top:6px solid var(--brand);border-radius:12px;padding:2rem}}
.embed main{margin:0;border:0;border-top:4px solid var(--brand);min-height:0;max-width:none}
.brand{display:flex;align-items:center;gap:.75rem;font-size:.875rem;color:#4a5360;margin:0 0 .75rem}
.brand img{display:block;max-height:40px;max-width:10rem;width:auto;height:auto}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .5rem}
h2{font-size:1.125rem;margin:1.5rem 0 .5rem}
.deadline{color:#4a5360;font-size:.875rem}
ul.purposes{padding-left:1.25rem}
ul.purposes li{margin:.25rem 0}
.tag{display:inline-block;font-size:.75rem;padding:0 .4rem;border-radius:4px;background:#e8ebef;margin-left:.25rem}
.intro{color:#4a5360;margin:.25rem 0 .75rem}
fieldset.choices{border:0;margin:0;padding:0;min-width:0}
fieldset.choices legend{padding:0}
.purpose input:disabled+label{cursor:default}
.purpose{display:grid;grid-template-columns:auto 1fr;gap:.25rem .75rem;align-items:start;padding:.75rem 0;border-top:1px solid #e3e6ea}
.purpose:last-child{border-bottom:1px solid #e3e6ea}
.purpose label{font-weight:600;cursor:pointer;min-height:28px}
.purpose .desc{grid-column:2;margin:0;color:#4a5360;font-size:.9375rem}
.purpose.fixed .mark{width:1.5rem;height:1.5rem;margin-top:.1rem;border-radius:4px;background:#4a5360;color:#fff;font-size:.875rem;line-height:1.5rem;text-align:center}
.purpose .fixed-note{grid-column:2;margin:0;font-size:.8125rem;color:#4a5360}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dt{font-weight:600}
dd{margin:0;word-break:break-word}
a{color:var(--brand-ink)}
#svc-progress{font-weight:600;margin-top:1.5rem}
#svc-progress:empty{display:none}
#svc-actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1rem;align-items:center}
#svc-actions .field{flex-basis:100%;display:flex;gap:.5rem;align-items:flex-start}
#svc-actions.choice-row{display:grid;grid-template-columns:repeat(3,1fr);align-items:stretch}
#svc-actions.choice-row.two{grid-template-columns:repeat(2,1fr)}
button{font:inherit;min-height:44px;padding:.5rem 1.25rem;border-radius:8px;border:2px solid var(--brand-ink);cursor:pointer}
button.primary,button.choice{background:var(--brand);color:var(--on-brand);border-color:var(--brand)}
button.choice{font-weight:600;width:100%;padding:.5rem .75rem}
button.secondary{background:#fff;color:var(--brand-ink)}
button:disabled{opacity:.6;cursor:not-allowed}
:focus-visible{outline:3px solid #1b1f24;outline-offset:2px;box-shadow:0 0 0 5px #fff}
input[type=checkbox]{width:1.5rem;height:1.5rem;margin:.1rem 0 0;accent-color:var(--brand-ink);cursor:pointer}
form#svc-counter{margin-top:1rem;display:grid;gap:.5rem}
textarea{font:inherit;width:100%;min-height:6rem;padding:.5rem;border:1px solid #8a94a3;border-radius:6px}
#svc-status{margin-top:1rem;min-height:1.5rem}
.code{font-size:.875rem;color:#4a5360}
@media (max-width:30rem){#svc-actions button{flex:1 1 100%}#svc-actions.choice-row,#svc-actions.choice-row.two{grid-template-columns:1fr}}
`;

/**
 * The custom properties of an application's brand (see brand-colours.ts): filled surfaces in the
 * brand colour with the text colour computed for contrast, and a shade of the brand colour that
 * reads on white for outlines, links and checkboxes.
 */
export function brandStyles(palette: BrandPalette): string {
  const hex = (value: string) => (/^#[0-9a-f]{6}$/.test(value) ? value : '#000000');
  return `:root{--brand:${hex(palette.brand)};--on-brand:${hex(palette.onBrand)};--brand-ink:${hex(palette.ink)}}`;
}
