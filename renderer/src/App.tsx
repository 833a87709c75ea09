// The window: the sign-in notice when the browser has no token, else sidebar + current page.
import { useEffect, useRef } from "react";
import { Sidebar } from "./components/Sidebar.js";
import { TokenNotice } from "./components/TokenNotice.js";
import { DEFAULT_PAGE_ID, PAGES } from "./pages/registry.js";
import { startLiveEvents } from "./stores/liveEvents.js";
import { startNavigation, useNavigation } from "./stores/navigation.js";
import { useSession } from "./stores/session.js";

const PAGE_IDS = PAGES.map((p) => p.id);

export function App() {
  const status = useSession((s) => s.status);
  if (status === "missing-token" || status === "unauthorized") return <TokenNotice reason={status} />;
  if (status === "starting") return null;
  return <Shell />;
}

function Shell() {
  useEffect(() => startLiveEvents(), []);
  useEffect(() => startNavigation(PAGE_IDS, DEFAULT_PAGE_ID), []);
  const pageId = useNavigation((s) => s.pageId);
  const page = PAGES.find((p) => p.id === pageId) ?? PAGES.find((p) => p.id === DEFAULT_PAGE_ID);
  const mainRef = useRef<HTMLElement>(null);
  const firstPage = useRef(true);
  useEffect(() => {
    document.title = page ? `${page.title} · Switchyard` : "Switchyard";
    // After a sidebar link, keyboard and screen-reader users continue in the new page, not the nav.
    if (firstPage.current) firstPage.current = false;
    else mainRef.current?.focus();
  }, [page]);
  return (
    <div className="shell">
      <Sidebar pages={PAGES} currentId={page?.id ?? ""} />
      <main id="main" tabIndex={-1} ref={mainRef}>
        {page && <page.Component />}
      </main>
    </div>
  );
}
