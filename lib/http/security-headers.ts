// The security headers of every response. next.config.ts sends SECURITY_HEADERS with everything it
// serves (pages, API, static files, its own 404s); proxy.ts replaces the CSP of pages with one that
// carries a per-request nonce, which App Router's inline bootstrap scripts need (a static
// `script-src 'self'` stops hydration).

/** Sent with every response. The CSP here fits answers that are not pages: they load nothing. */
export const SECURITY_HEADERS: readonly { key: string; value: string }[] = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "no-referrer" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Content-Security-Policy", value: "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'" },
];

/**
 * A page's CSP: scripts only from this origin or carrying `nonce` (and what they load, through
 * 'strict-dynamic'); no framing. React's style={…} attributes cannot carry a nonce, hence
 * style-src-attr 'unsafe-inline'. `dev` adds what `next dev` needs to evaluate its modules.
 */
export function pageCsp(nonce: string, { dev = false } = {}): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    `style-src-elem 'self' 'nonce-${nonce}'${dev ? " 'unsafe-inline'" : ""}`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data:",
    // A tool's sound is shown inline as a data: URL (components/common/content-blocks-view.tsx).
    "media-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self'${dev ? " ws:" : ""}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
