// Security headers on every response. The Content-Security-Policy allows scripts only with the
// request's nonce (Next.js reads it from the request's own CSP header and stamps its inline
// bootstrap and chunk loaders with it; 'strict-dynamic' lets those load the rest), so an
// injected <script> cannot run. Styles keep 'unsafe-inline': React style attributes (charts,
// the map's geometry) are inline, and CSS cannot run code. frame-ancestors 'none' stops
// click-jacking of guarded actions.

export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    // socket.io's WebSocket and polling, and tRPC: this origin only
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The headers every response carries, whatever answers it. */
export function securityHeaders(nonce: string, https: boolean): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy(nonce),
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
    ...(https ? { 'strict-transport-security': 'max-age=31536000' } : {}),
  };
}
