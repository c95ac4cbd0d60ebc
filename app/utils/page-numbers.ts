// Every page number when there are 7 pages or fewer; otherwise the first and last pages,
// the current page and its neighbours, with an ellipsis for each gap.
export type PageItem = number | 'ellipsis-start' | 'ellipsis-end';

export function pageNumbers(current: number, total: number): PageItem[] {
  if (total <= 0) return [];
  const page = Math.min(Math.max(1, current), total);
  if (total <= 7) return Array.from({ length: total }, (_, i) => i + 1);
  const items: PageItem[] = [1];
  const from = Math.max(2, page - 1);
  const to = Math.min(total - 1, page + 1);
  if (from > 2) items.push('ellipsis-start');
  for (let n = from; n <= to; n++) items.push(n);
  if (to < total - 1) items.push('ellipsis-end');
  items.push(total);
  return items;
}
