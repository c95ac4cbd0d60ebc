import { useTranslation } from 'react-i18next';
import { inputClass } from '~/components/ui/input';

export type PostTermsReviewData = {
  categories: { id: number; name: string }[];
  choices: { resultId: string; title: string; categories: number[]; tags: string[] }[];
  failed: 'site' | 'no_key' | 'model' | null;
};

/** The publish page's answer to the button: the model's choice for its one post, or why there is none. */
export type TermChoiceView = { choice: { categories: number[]; tags: string[] } | null; failed: PostTermsReviewData['failed'] };

/**
 * The button that asks the model to choose categories and tags per post (a post of the bulk form
 * with `intent=choose-terms`, answered with the review below; the same without JavaScript).
 */
export function ChooseTermsButton({ disabled }: { disabled?: boolean }) {
  const { t } = useTranslation('wordpress');
  return (
    <div className="flex flex-col gap-1">
      <button
        type="submit"
        name="intent"
        value="choose-terms"
        formNoValidate
        disabled={disabled}
        className="self-start rounded-md bg-white px-3 py-1.5 text-sm font-medium text-slate-800 ring-1 ring-inset ring-slate-300 hover:bg-slate-50"
      >
        {t('terms.choose')}
      </button>
      <p className="text-xs text-slate-600">{t('terms.chooseHelp')}</p>
    </div>
  );
}

/**
 * The model's choices, one post a row, for review inside the bulk form: the site's categories as
 * checkboxes (the chosen ones ticked) and the tags as a comma-separated field, posted as
 * `perPost[i].resultId`, `perPost[i].categories`, `perPost[i].tags`; they replace the shared
 * categories and tags for these posts.
 */
export function PostTermsReview({ review }: { review: PostTermsReviewData }) {
  const { t } = useTranslation('wordpress');
  return (
    <fieldset className="flex flex-col gap-3 rounded-lg p-3 ring-1 ring-inset ring-slate-200" data-testid="post-terms">
      <legend className="px-1 text-sm font-semibold text-slate-900">{t('terms.legend')}</legend>
      {review.failed ? (
        <p className="text-sm text-amber-800" role="status">
          {t(`terms.failed.${review.failed}`)}
        </p>
      ) : null}
      {review.choices.length > 0 ? <p className="text-xs text-slate-600">{t('terms.reviewHelp')}</p> : null}
      {review.choices.map((c, i) => (
        <div key={c.resultId} className="flex flex-col gap-2 border-t border-slate-100 pt-2" data-testid="post-terms-row">
          <input type="hidden" name={`perPost[${i}].resultId`} value={c.resultId} />
          <p className="text-sm font-medium break-words text-slate-900">{c.title}</p>
          <div className="flex flex-wrap gap-3" role="group" aria-label={t('terms.categories')}>
            {review.categories.map((cat) => (
              <label key={cat.id} className="flex items-center gap-2 text-sm text-slate-800">
                <input
                  type="checkbox"
                  name={`perPost[${i}].categories`}
                  value={cat.id}
                  defaultChecked={c.categories.includes(cat.id)}
                  className="size-4"
                />
                {cat.name}
              </label>
            ))}
          </div>
          <label className="flex flex-col gap-1 text-sm text-slate-800">
            {t('terms.tags')}
            <input name={`perPost[${i}].tags`} defaultValue={c.tags.join(', ')} className={inputClass} />
          </label>
        </div>
      ))}
    </fieldset>
  );
}
