/** HTML-escapes text for element content and double-quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/**
 * A plain page of a signed-in person (no framework, no third-party asset): the title as `<h1>`,
 * `main` (already escaped HTML), its own small stylesheet and an optional inline script, both
 * under the page's CSP nonce; `script` runs after the main element.
 */
export function plainPage(page: { locale: string; nonce: string; title: string; style: string; main: string; script?: string }): string {
  return `<!doctype html>
<html lang="${escapeHtml(page.locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(page.title)}</title>
<style nonce="${page.nonce}">${page.style}</style>
</head>
<body>
<main>
<h1>${escapeHtml(page.title)}</h1>
${page.main}
</main>
${page.script ? `<script nonce="${page.nonce}">${page.script}</script>\n` : ''}</body>
</html>`;
}
