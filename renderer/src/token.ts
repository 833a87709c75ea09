// The admin token of headless mode (API.md): it arrives once in the URL fragment, which the
// browser never sends to the server, is kept in sessionStorage for reloads of this tab, and is
// removed from the address bar at once so it does not linger in history or screenshots.

export const TOKEN_STORAGE_KEY = "switchyard.adminToken";

export interface TokenEnvironment {
  location: Pick<Location, "hash" | "pathname" | "search">;
  storage: Pick<Storage, "getItem" | "setItem" | "removeItem">;
  history: Pick<History, "replaceState" | "state">;
}

/** Returns the token from `#token=…` (storing it and cleaning the URL) or from a previous load. */
export function takeAdminToken(env: TokenEnvironment): string | null {
  const fragment = env.location.hash.startsWith("#") ? env.location.hash.slice(1) : env.location.hash;
  const params = new URLSearchParams(fragment);
  const fromUrl = params.get("token");
  if (fromUrl !== null) {
    params.delete("token");
    const remaining = params.toString();
    env.history.replaceState(env.history.state, "", `${env.location.pathname}${env.location.search}${remaining ? `#${remaining}` : ""}`);
    if (fromUrl.trim()) {
      env.storage.setItem(TOKEN_STORAGE_KEY, fromUrl.trim());
      return fromUrl.trim();
    }
  }
  return env.storage.getItem(TOKEN_STORAGE_KEY);
}

export function forgetAdminToken(storage: Pick<Storage, "removeItem">): void {
  storage.removeItem(TOKEN_STORAGE_KEY);
}
