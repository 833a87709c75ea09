// The navigation column: one real link per page, plus where the data comes from and whether
// live updates are flowing.
import type { PageDefinition } from "../pages/registry.js";
import { useLiveEvents } from "../stores/liveEvents.js";
import { useSession } from "../stores/session.js";

const STREAM_LABELS = {
  connecting: "connecting…",
  open: "on",
  reconnecting: "reconnecting…",
  closed: "off",
} as const;

export function Sidebar({ pages, currentId }: { pages: readonly PageDefinition[]; currentId: string }) {
  const stream = useLiveEvents((s) => s.stream);
  const mode = useSession((s) => s.mode);
  return (
    <aside className="sidebar">
      <p className="brand">Switchyard</p>
      <nav aria-label="Main">
        <ul className="nav-list">
          {pages.map((page) => (
            <li key={page.id}>
              <a href={`#/${page.id}`} aria-current={page.id === currentId ? "page" : undefined}>
                {page.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div className="sidebar-footer">
        <p role="status" className={`live live-${stream}`}>
          <span className="dot" aria-hidden="true" /> Live updates: {STREAM_LABELS[stream]}
        </p>
        <p className="muted">{mode === "ipc" ? "Desktop app" : "Browser dashboard"}</p>
      </div>
    </aside>
  );
}
