// Every page of the window (R14.2) registers here; the sidebar and the router read this list,
// so a new page is one import and one entry.
import type { ComponentType } from "react";
import { ProvidersPage } from "./ProvidersPage.js";

export interface PageDefinition {
  id: string;
  title: string;
  Component: ComponentType;
}

export const PAGES: readonly PageDefinition[] = [{ id: "providers", title: "Providers & connections", Component: ProvidersPage }];

export const DEFAULT_PAGE_ID = "providers";
