/**
 * Stylesheet of the hosted pages, sent inline under the CSP nonce. Mobile first (one column,
 * 44 px touch targets), a visible focus ring for keyboard users, and colours at WCAG AA contrast.
 */
export const PAGE_STYLES = `
*,*::before,*::after{box-sizing:border-box}
[hidden]{display:none !important}
html{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f6f7f9}
body{margin:0}
main{max-width:40rem;margin:0 auto;padding:1.25rem;background:#fff;min-height:100vh}
@media (min-width:48rem){main{margin:2rem auto;min-height:0;border:1px solid #d8dce1;border-radius:12px;padding:2rem}}
.embed main{margin:0;border:0;min-height:0;max-width:none}
.brand{font-size:.875rem;color:#4a5360;margin:0 0 .5rem}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .5rem}
h2{font-size:1.125rem;margin:1.5rem 0 .5rem}
.deadline{color:#4a5360;font-size:.875rem}
ul.purposes{padding-left:1.25rem}
ul.purposes li{margin:.25rem 0}
.tag{display:inline-block;font-size:.75rem;padding:0 .4rem;border-radius:4px;background:#e8ebef;margin-left:.25rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dt{font-weight:600}
dd{margin:0;word-break:break-word}
#svc-progress{font-weight:600;margin-top:1.5rem}
#svc-progress:empty{display:none}
#svc-actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1rem;align-items:center}
#svc-actions .field{flex-basis:100%;display:flex;gap:.5rem;align-items:flex-start}
button{font:inherit;min-height:44px;padding:.5rem 1.25rem;border-radius:8px;border:2px solid #0b57d0;cursor:pointer}
button.primary{background:#0b57d0;color:#fff}
button.secondary{background:#fff;color:#0b57d0}
button:disabled{opacity:.6;cursor:not-allowed}
:focus-visible{outline:3px solid #e37400;outline-offset:2px}
input[type=checkbox]{width:1.25rem;height:1.25rem;margin-top:.15rem}
form#svc-counter{margin-top:1rem;display:grid;gap:.5rem}
textarea{font:inherit;width:100%;min-height:6rem;padding:.5rem;border:1px solid #8a94a3;border-radius:6px}
#svc-status{margin-top:1rem;min-height:1.5rem}
@media (max-width:30rem){#svc-actions button{flex:1 1 100%}}
`;
