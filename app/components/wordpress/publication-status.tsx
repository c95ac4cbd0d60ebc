import { useTranslation } from 'react-i18next';
import { Badge } from '~/components/ui/badge';
import { PublicationError } from './publication-error';
import { ZonedTime } from './zoned-time';

/** The latest publication of a result, as the results list shows it. */
export type PublicationView = {
  status: 'queued' | 'published' | 'failed' | 'canceled';
  siteName: string;
  siteTimeZone: string | null;
  publishAt: string;
  attempts: number;
  lastError: string | null;
  lastErrorCode: string | null;
  link: string | null;
  /** False: the site did not store the SEO meta (the companion plugin is not active). */
  seoWritten?: boolean | null;
  /** 'media': an image result sent to the media library only (the link is the image). */
  kind?: 'post' | 'media';
};

/**
 * On a result's row: published (with a link to the post), scheduled (when, in the user's time
 * zone), publishing or being retried (the site's last message), or failed with the site's message.
 */
export function PublicationStatus({ publication: p, timeZone }: { publication: PublicationView; timeZone: string }) {
  const { t } = useTranslation('wordpress');
  const scheduled = p.status === 'queued' && new Date(p.publishAt).getTime() > Date.now() + 60_000 && !p.lastError;
  return (
    <p
      className={`flex flex-wrap items-center gap-x-2 gap-y-1 break-words text-sm ${p.status === 'failed' ? 'text-red-700' : 'text-slate-700'}`}
      data-testid="result-publication"
      data-publication-status={scheduled ? 'scheduled' : p.status}
    >
      {p.status === 'published' ? (
        <>
          <Badge tone="success">{t('publish.status.published')}</Badge>
          <span>{t('row.published', { site: p.siteName })}</span>
          {p.link ? (
            // At least 24 px tall: a target of its own in the row, not a word in a sentence (WCAG 2.5.8).
            <a
              href={p.link}
              target="_blank"
              rel="noreferrer"
              className="inline-flex min-h-6 items-center font-medium text-indigo-700 hover:underline"
            >
              {p.kind === 'media' ? t('publish.viewImage') : t('publish.viewPost')}
            </a>
          ) : null}
          {p.seoWritten === false ? (
            <span className="text-amber-800" data-testid="seo-not-written">
              {t('seo.notWritten')}
            </span>
          ) : null}
        </>
      ) : p.status === 'failed' ? (
        <>
          <Badge tone="warning">{t('publish.status.failed')}</Badge>
          <span>
            <strong>{t('row.failed', { site: p.siteName })}</strong> <PublicationError code={p.lastErrorCode} raw={p.lastError} />
          </span>
        </>
      ) : p.status === 'canceled' ? (
        <>
          <Badge>{t('publish.status.canceled')}</Badge>
          <span>{t('row.canceled', { site: p.siteName })}</span>
        </>
      ) : scheduled ? (
        <>
          <Badge tone="brand">{t('row.scheduledBadge')}</Badge>
          <span>
            {t('row.scheduled', { site: p.siteName })} <ZonedTime iso={p.publishAt} timeZone={timeZone} siteTimeZone={p.siteTimeZone} />
          </span>
        </>
      ) : (
        <>
          <Badge tone="brand">{t('publish.status.queued')}</Badge>
          <span>{t('row.publishing', { site: p.siteName })}</span>
          {p.lastError ? (
            <span className="text-amber-800">
              {t('row.retryingAfter', { count: p.attempts })} <PublicationError code={p.lastErrorCode} raw={p.lastError} />
            </span>
          ) : null}
        </>
      )}
    </p>
  );
}
