import { useTranslation } from 'react-i18next';
import { pageNumbers } from '~/utils/page-numbers';
import { AppLink } from '~/components/ui/app-link';

const itemClass =
  'inline-flex min-w-9 items-center justify-center rounded-lg px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-indigo-600';

/** Page links (every page up to 7, else the first, last and neighbours); `hrefFor(page)` builds each page's URL so it works without JavaScript. */
export function Pagination({ page, totalPages, hrefFor }: { page: number; totalPages: number; hrefFor: (page: number) => string }) {
  const { t } = useTranslation('workspace');
  if (totalPages <= 1) return null;
  return (
    <nav aria-label={t('results.pagination.label')} className="flex flex-wrap items-center justify-center gap-1">
      {page > 1 ? (
        <AppLink to={hrefFor(page - 1)} preventScrollReset className={`${itemClass} text-slate-700 hover:bg-slate-100`}>
          {t('results.pagination.previous')}
        </AppLink>
      ) : null}
      {pageNumbers(page, totalPages).map((item) =>
        typeof item === 'number' ? (
          <AppLink
            key={item}
            to={hrefFor(item)}
            preventScrollReset
            aria-current={item === page ? 'page' : undefined}
            aria-label={item === page ? t('results.pagination.current', { page: item }) : t('results.pagination.page', { page: item })}
            className={`${itemClass} ${item === page ? 'bg-indigo-600 text-white' : 'text-slate-700 hover:bg-slate-100'}`}
          >
            {item}
          </AppLink>
        ) : (
          <span key={item} aria-hidden="true" className="px-2 text-sm text-slate-500">
            …
          </span>
        ),
      )}
      {page < totalPages ? (
        <AppLink to={hrefFor(page + 1)} preventScrollReset className={`${itemClass} text-slate-700 hover:bg-slate-100`}>
          {t('results.pagination.next')}
        </AppLink>
      ) : null}
    </nav>
  );
}
