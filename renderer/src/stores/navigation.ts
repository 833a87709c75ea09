// Navigation concern: the current page, kept in the URL fragment (`#/providers`) so links are
// real links, the back button works and a reload stays on the same page.
import { create } from "zustand";

interface NavigationState {
  pageId: string;
}

export function pageIdFromHash(hash: string, known: readonly string[], fallback: string): string {
  const id = hash.replace(/^#\/?/, "").split(/[/?]/)[0] ?? "";
  return known.includes(id) ? id : fallback;
}

export const useNavigation = create<NavigationState>()(() => ({ pageId: "" }));

export function startNavigation(known: readonly string[], fallback: string): () => void {
  const sync = () => useNavigation.setState({ pageId: pageIdFromHash(window.location.hash, known, fallback) });
  sync();
  window.addEventListener("hashchange", sync);
  return () => window.removeEventListener("hashchange", sync);
}
