import { Form, useFetcher } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { Badge } from '~/components/ui/badge';
import { Button } from '~/components/ui/button';
import { ButtonLink } from '~/components/ui/button-link';
import { formatDateTimeInZone } from '~/utils/time-zone';

/** A connected site as the WordPress page lists it. */
export type SiteItem = {
  id: number;
  siteName: string;
  siteUrl: string;
  username: string;
  isDefault: boolean;
  classicHtml: boolean;
  internalLinks: boolean;
};

/** How many of a site's posts are kept as link targets, and when they were read. */
export type SitePostsCacheItem = { siteId: number; count: number; refreshedAt: string | null };

/** One site of the list: its badges, its cached posts and its buttons (plain forms and links). */
export function SiteRow({ site, cache, timeZone }: { site: SiteItem; cache?: SitePostsCacheItem; timeZone: string }) {
  const { t } = useTranslation('wordpress');
  return (
    <li className="flex flex-wrap items-center justify-between gap-3 px-5 py-4" data-testid="site-row">
      <div className="min-w-0">
        <p className="flex items-center gap-2 font-semibold text-slate-900">
          <span className="truncate">{site.siteName}</span>
          {site.isDefault ? <Badge tone="success">{t('sites.default')}</Badge> : null}
          {site.classicHtml ? <Badge>{t('sites.classicBadge')}</Badge> : null}
          {!site.internalLinks ? <Badge>{t('sites.linksOffBadge')}</Badge> : null}
        </p>
        <p className="truncate text-sm text-slate-600">
          {site.siteUrl} · {site.username}
        </p>
        <SitePostsCache cache={cache} timeZone={timeZone} />
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <RefreshPostsButton site={site} />
        {!site.isDefault ? (
          <Form method="post" action="/wordpress">
            <input type="hidden" name="siteId" value={site.id} />
            <Button type="submit" name="intent" value="default" variant="ghost" size="sm">
              {t('sites.makeDefault')}
            </Button>
          </Form>
        ) : null}
        <ButtonLink
          to={`/wordpress?edit=${site.id}`}
          variant="secondary"
          size="sm"
          preventScrollReset
          aria-label={`${t('sites.edit')} ${site.siteName}`}
        >
          {t('sites.edit')}
        </ButtonLink>
        <ButtonLink
          to={`/wordpress?delete=${site.id}`}
          variant="ghost"
          size="sm"
          preventScrollReset
          aria-label={`${t('sites.delete')} ${site.siteName}`}
          className="text-red-700"
        >
          {t('sites.delete')}
        </ButtonLink>
      </div>
    </li>
  );
}

/** How many of the site's posts are cached as link targets, and when they were read. */
function SitePostsCache({ cache, timeZone }: { cache?: SitePostsCacheItem; timeZone: string }) {
  const { t, i18n } = useTranslation('wordpress');
  return (
    <p className="text-xs text-slate-600" data-testid="site-posts">
      {cache?.refreshedAt ? (
        <>
          {t('sites.postsCached', { count: cache.count })} ·{' '}
          {t('sites.postsReadAt', { time: formatDateTimeInZone(cache.refreshedAt, i18n.language, timeZone) })}
        </>
      ) : (
        t('sites.postsNever')
      )}
    </p>
  );
}

/**
 * Reads the site's posts again. With JavaScript a fetcher posts it and the button shows the read
 * under way; without, the form posts and the page comes back with the outcome as a toast.
 */
function RefreshPostsButton({ site }: { site: SiteItem }) {
  const { t } = useTranslation('wordpress');
  const fetcher = useFetcher();
  const pending = fetcher.state !== 'idle';
  return (
    <fetcher.Form method="post" action="/wordpress">
      <input type="hidden" name="siteId" value={site.id} />
      <Button
        type="submit"
        name="intent"
        value="refresh-posts"
        variant="ghost"
        size="sm"
        pending={pending}
        aria-label={t('sites.refreshPostsLabel', { site: site.siteName })}
      >
        {pending ? t('sites.refreshingPosts') : t('sites.refreshPosts')}
      </Button>
    </fetcher.Form>
  );
}
