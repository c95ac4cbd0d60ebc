import { CSV_TEMPLATE_CONTENT, CSV_TEMPLATE_NAME } from '~/utils/csv-file';

// The CSV template download, blog-topics-template.csv with the header topic_or_keyword.
export function loader() {
  return new Response(CSV_TEMPLATE_CONTENT, {
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${CSV_TEMPLATE_NAME}"`,
      'Cache-Control': 'public, max-age=3600',
    },
  });
}
