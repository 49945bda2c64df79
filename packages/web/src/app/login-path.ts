/** Where the console sends a caller whose session ended: the login page, with the way back. */

/** Where to come back to after logging in again. */
export function loginPath(): string {
  const here = `${location.pathname}${location.search}`;
  return here.startsWith('/login') ? here : `/login?next=${encodeURIComponent(here)}`;
}
