import type { ReactNode } from "react";
import type { StatusTone } from "../format.js";

export function Badge({ tone, children }: { tone: StatusTone; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}
