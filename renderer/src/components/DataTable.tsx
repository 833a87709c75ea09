// The dashboard's one table layout: a wrapper that scrolls instead of widening the page (the layout
// checks forbid sideways page scrolling), a caption for screen readers only, and column headers.
import type { ReactNode } from "react";

/** A column header; `numeric` right-aligns it like the cells below it. */
export type Column = string | { label: string; numeric: true };

export function DataTable(props: { caption: string; columns: readonly Column[]; className?: string; children: ReactNode }) {
  return (
    <div className={props.className ? `${props.className} table-wrap` : "table-wrap"}>
      <table>
        <caption className="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) =>
              typeof column === "string" ? (
                <th key={column} scope="col">
                  {column}
                </th>
              ) : (
                <th key={column.label} scope="col" className="num">
                  {column.label}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
