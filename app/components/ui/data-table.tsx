import type { HTMLAttributes, ReactNode } from 'react';

/** One column: its header cell and, per row, its cell; classes per column (or per row, e.g. a sign's colour). */
export type Column<Row> = {
  key: string;
  header: ReactNode;
  headerClassName?: string;
  className?: string | ((row: Row) => string);
  /** Extra attributes of the cell (e.g. the raw figures a test or a script reads). */
  cellProps?: (row: Row) => HTMLAttributes<HTMLTableCellElement> & Record<`data-${string}`, string | number>;
  cell: (row: Row) => ReactNode;
};

/**
 * The app's one table of records (the credit history, the admin ledger's finance flags, payments and
 * verify problems): a header row of column headings, then a row per record, divided by lines. Server
 * rendered; paging, empty states and the frame around it are the caller's.
 */
export function DataTable<Row>({
  columns,
  rows,
  rowKey,
  rowProps,
  className,
  testId,
}: {
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row, index: number) => string | number;
  rowProps?: (row: Row) => Record<`data-${string}`, string | number>;
  className: string;
  testId?: string;
}) {
  return (
    <table className={className} data-testid={testId}>
      <thead className="border-b border-slate-200 text-slate-700">
        <tr>
          {columns.map((column) => (
            <th key={column.key} scope="col" className={column.headerClassName}>
              {column.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {rows.map((row, index) => (
          <tr key={rowKey(row, index)} {...rowProps?.(row)}>
            {columns.map((column) => (
              <td
                key={column.key}
                className={typeof column.className === 'function' ? column.className(row) : column.className}
                {...column.cellProps?.(row)}
              >
                {column.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
