// The API token, typed once and kept for this browser tab in sessionStorage: never in a
// URL, a cookie or a log. Closing the tab forgets it; "Sign out" does too.
const KEY = "gpuctl.token";

export function savedToken(store: Storage = sessionStorage): string | null {
  return store.getItem(KEY);
}

export function keepToken(token: string, store: Storage = sessionStorage): void {
  store.setItem(KEY, token);
}

export function forgetToken(store: Storage = sessionStorage): void {
  store.removeItem(KEY);
}
