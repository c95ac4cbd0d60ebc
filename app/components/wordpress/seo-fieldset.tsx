import { useTranslation } from 'react-i18next';
import { inputClass } from '~/components/ui/input';
import { FOCUS_KEYWORD_MAX, META_DESCRIPTION_MAX, type SeoFields } from '~/utils/seo-fields';

/**
 * A text result's SEO fields in a form: meta description (at most 155 characters,
 * the browser's maxLength and the server's schema), slug and focus keyword. Plain inputs: the
 * same without JavaScript. Used by the result editor and the publish page.
 */
export function SeoFieldset({ seo, idPrefix, disabled }: { seo: SeoFields; idPrefix: string; disabled?: boolean }) {
  const { t } = useTranslation('wordpress');
  const id = (name: string) => `${idPrefix}-seo-${name}`;
  return (
    <fieldset className="flex flex-col gap-3 rounded-lg p-3 ring-1 ring-inset ring-slate-200" data-testid="seo-fields" disabled={disabled}>
      <legend className="px-1 text-sm font-semibold text-slate-900">{t('seo.legend')}</legend>
      <div className="flex flex-col gap-1.5 text-sm font-medium text-slate-800">
        <label htmlFor={id('description')}>{t('seo.metaDescription')}</label>
        <textarea
          id={id('description')}
          name="metaDescription"
          rows={2}
          maxLength={META_DESCRIPTION_MAX}
          defaultValue={seo.metaDescription}
          className={inputClass}
          aria-describedby={`${id('description')}-help`}
        />
        <span id={`${id('description')}-help`} className="text-xs font-normal text-slate-600">
          {t('seo.metaDescriptionHelp', { max: META_DESCRIPTION_MAX })}
        </span>
      </div>
      <div className="flex flex-wrap gap-3">
        <div className="flex min-w-48 flex-1 flex-col gap-1.5 text-sm font-medium text-slate-800">
          <label htmlFor={id('slug')}>{t('seo.slug')}</label>
          <input
            id={id('slug')}
            name="slug"
            defaultValue={seo.slug}
            maxLength={1000}
            className={inputClass}
            aria-describedby={`${id('slug')}-help`}
          />
          <span id={`${id('slug')}-help`} className="text-xs font-normal text-slate-600">
            {t('seo.slugHelp')}
          </span>
        </div>
        <label className="flex min-w-48 flex-1 flex-col gap-1.5 text-sm font-medium text-slate-800">
          {t('seo.focusKeyword')}
          <input
            id={id('keyword')}
            name="focusKeyword"
            defaultValue={seo.focusKeyword}
            maxLength={FOCUS_KEYWORD_MAX}
            className={inputClass}
          />
        </label>
      </div>
    </fieldset>
  );
}
