/** Where the console sends a caller whose session ended: the login page, with the way back. */

/** Pages a signed-out visitor may open. */
export const PUBLIC_PATHS = ['/login', '/signup', '/forgot-password', '/reset-password', '/verify-email', '/pricing'];

const HINT = 'gatehouse_signed_in';

/**
 * Whether the browser holds a session: the gateway keeps a readable cookie (no secret in it) beside the
 * httpOnly session cookie, set with it and cleared with it.
 */
export function signedInHint(): boolean {
  return document.cookie.split(';').some((c) => c.trim() === `${HINT}=1`);
}

/** The session ended (a 401): forget the hint, so the next start goes to the login page at once. */
export function clearSignedInHint(): void {
  document.cookie = `${HINT}=; Max-Age=0; path=/; SameSite=Lax`;
}

/** Where to come back to after logging in again. */
export function loginPath(): string {
  const here = `${location.pathname}${location.search}`;
  return here.startsWith('/login') ? here : `/login?next=${encodeURIComponent(here)}`;
}
