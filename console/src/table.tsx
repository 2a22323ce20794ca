import type { ReactNode } from 'react';
import { Loading } from './ui';

export interface Column<T> {
  head: string;
  cell: (row: T) => ReactNode;
  className?: string;
}

/**
 * A list page's table: "Loading…" until the rows arrive, `empty` (when given) for none, and
 * otherwise one row per item under column headings, scrollable sideways on a phone.
 */
export function DataTable<T>({
  rows,
  columns,
  rowKey,
  empty,
}: {
  rows: readonly T[] | undefined;
  columns: ReadonlyArray<Column<T>>;
  rowKey: (row: T) => string;
  empty?: string;
}) {
  if (!rows) return <Loading />;
  if (rows.length === 0 && empty) return <p className="muted">{empty}</p>;
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.head} scope="col">
                {c.head}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={rowKey(r)}>
              {columns.map((c) => (
                <td key={c.head} className={c.className}>
                  {c.cell(r)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
