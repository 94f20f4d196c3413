// Where the console sends a browser after sign-in (the sign-in page's and the OIDC callback's
// `next`): a path of this console, or "/". A prefix check on the raw text is not enough:
// browsers drop tabs and newlines from a URL and read "\" as "/", so "/\t/evil.example/" becomes
// "//evil.example/", another site. The text is parsed as a browser would (WHATWG URL) against a
// placeholder origin, must stay on that origin, and the path it gives back must not itself read
// as another origin ("/.//x" normalises to "//x"). Pure: the server and the page share it.

const BASE = 'http://palisade.invalid';
export const MAX_NEXT_LENGTH = 1024;

/** The same-origin path (with query and fragment) `raw` leads to, or "/" when it leads anywhere else. */
export function safeNext(raw: string | null | undefined): string {
  if (!raw || raw.length > MAX_NEXT_LENGTH || !raw.startsWith('/')) return '/';
  // a control character has no business in a path, and browsers strip some of them silently
  // biome-ignore lint/suspicious/noControlCharactersInRegex: that is the point
  if (/[\u0000-\u001f\u007f\\]/.test(raw)) return '/';
  let u: URL;
  try {
    u = new URL(raw, BASE);
  } catch {
    return '/';
  }
  if (u.origin !== BASE) return '/';
  const out = `${u.pathname}${u.search}${u.hash}`;
  if (!out.startsWith('/') || out.startsWith('//') || out.length > MAX_NEXT_LENGTH) return '/';
  return out;
}
