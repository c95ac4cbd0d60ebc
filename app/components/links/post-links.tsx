import { useFetcher } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { ResultTopic } from '~/components/result-topic';
import { runUrl } from '~/components/generation/urls';
import { useHydrated } from '~/components/generation/use-hydrated';
import { Badge } from '~/components/ui/badge';
import { Button } from '~/components/ui/button';
import type { ResultLink } from '~/services/internal-links.server';

// One post of a run with its proposed internal links: where each link stands (its
// anchor in its sentence), where it goes (a post of the run, by its URL or its /slug/, or a post
// of the user's site) and why (its relevance score). Remove one (it is never proposed again), or
// link this post again; removed links stay listed, folded.

/** With JavaScript the forms post through fetchers: the answer keeps the page where it is (no #post-... jump). */
export function StayField() {
  return useHydrated() ? <input type="hidden" name="stay" value="1" /> : null;
}

export type LinkView = Omit<ResultLink, 'removedAt'> & { removedAt: string | null };

/** Where a link goes, as the user will map it: an absolute URL, or the planned /slug/ of a run with no site. */
const targetOf = (link: LinkView) => link.targetUrl ?? `/${link.targetSlug ?? ''}/`;

export function PostLinks({
  runId,
  post,
  linked,
}: {
  runId: string;
  post: { id: string; title: string; topic: string; keyword: string; links: LinkView[]; removed: LinkView[] };
  /** Whether the run has been linked yet (an empty list means "none found" rather than "not linked yet"). */
  linked: boolean;
}) {
  const { t } = useTranslation('workspace');
  const relink = useFetcher();
  const relinking = relink.state !== 'idle';
  return (
    <li id={`post-${post.id}`} data-testid="link-post" className="rounded-xl p-4 ring-1 ring-slate-200">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h4 className="break-words font-semibold text-slate-900" data-testid="link-post-title">
            {post.title}
          </h4>
          <ResultTopic title={post.title} topic={post.topic} keyword={post.keyword} />
          <p className="text-xs text-slate-600">{t('links.postCount', { count: post.links.length })}</p>
        </div>
        <relink.Form method="post" action={runUrl(runId)} preventScrollReset>
          <input type="hidden" name="intent" value="relink-post" />
          <StayField />
          <input type="hidden" name="resultId" value={post.id} />
          <Button
            type="submit"
            variant="secondary"
            size="sm"
            pending={relinking}
            aria-label={t('links.relinkPostNamed', { title: post.title })}
          >
            {relinking ? t('links.linking') : t('links.relinkPost')}
          </Button>
        </relink.Form>
      </div>

      {post.links.length > 0 ? (
        <ul className="mt-3 flex flex-col gap-3">
          {post.links.map((link) => (
            <ProposedLink key={link.id} runId={runId} link={link} />
          ))}
        </ul>
      ) : (
        <p className="mt-3 text-sm text-slate-600" data-testid="link-post-empty">
          {linked ? t('links.none') : t('links.notLinked')}
        </p>
      )}

      {post.removed.length > 0 ? (
        <details className="mt-3 text-sm" data-testid="removed-links">
          <summary className="cursor-pointer font-medium text-slate-700">{t('links.removedCount', { count: post.removed.length })}</summary>
          <p className="mt-2 text-xs text-slate-600">{t('links.removedHelp')}</p>
          <ul className="mt-2 flex flex-col gap-1">
            {post.removed.map((link) => (
              <li key={link.id} data-testid="removed-link" className="break-words text-slate-600">
                <span className="line-through">“{link.anchor}”</span> → {link.targetTitle} <code className="text-xs">{targetOf(link)}</code>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </li>
  );
}

function ProposedLink({ runId, link }: { runId: string; link: LinkView }) {
  const { t } = useTranslation('workspace');
  const remove = useFetcher();
  const removing = remove.state !== 'idle';
  const at = link.sentence.indexOf(link.anchor);
  return (
    <li
      data-testid="proposed-link"
      aria-busy={removing || undefined}
      className={`rounded-lg bg-slate-50 p-3 text-sm ${removing ? 'opacity-60' : ''}`}
    >
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0 flex-1">
          <p className="break-words text-slate-900">
            <span className="font-semibold" data-testid="link-anchor">
              “{link.anchor}”
            </span>{' '}
            → <span data-testid="link-target-title">{link.targetTitle}</span>{' '}
            <Badge tone={link.targetResultId ? 'brand' : 'success'}>{link.targetResultId ? t('links.runPost') : t('links.sitePost')}</Badge>
          </p>
          <p className="mt-1 break-all">
            <code className="text-xs text-slate-700" data-testid="link-target">
              {targetOf(link)}
            </code>
          </p>
        </div>
        <remove.Form method="post" action={runUrl(runId)} preventScrollReset>
          <input type="hidden" name="intent" value="remove-link" />
          <StayField />
          <input type="hidden" name="linkId" value={link.id} />
          <input type="hidden" name="resultId" value={link.resultId} />
          <Button
            type="submit"
            variant="ghost"
            size="sm"
            className="text-red-700"
            pending={removing}
            aria-label={t('links.removeNamed', { anchor: link.anchor })}
          >
            {removing ? t('links.removing') : t('links.remove')}
          </Button>
        </remove.Form>
      </div>
      <p className="mt-2 break-words text-slate-700">
        <span className="font-medium">{t('links.where')}: </span>
        {at >= 0 ? (
          <>
            {link.sentence.slice(0, at)}
            <mark className="rounded bg-amber-50 px-0.5 text-amber-900">{link.anchor}</mark>
            {link.sentence.slice(at + link.anchor.length)}
          </>
        ) : (
          link.sentence
        )}
      </p>
      <p className="mt-1 text-slate-700" data-testid="link-why">
        <span className="font-medium">{t('links.why')}: </span>
        {t('links.because', { score: link.score.toFixed(1) })}
      </p>
    </li>
  );
}
