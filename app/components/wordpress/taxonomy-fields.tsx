import { useTranslation } from 'react-i18next';
import { Field } from '~/components/ui/field';

/**
 * The categories and tags of a post, on both publish pages (one result, many results): the site's
 * categories as checkboxes (`categories`, loaded with the page; a note when they could not be read or
 * there are none) and the tags as one comma-separated text field.
 */
export function TaxonomyFields({
  categories,
  categoriesFailed,
  tagsName = 'tags',
  chosen,
}: {
  categories: { id: number; name: string }[];
  categoriesFailed: boolean;
  tagsName?: string;
  /** Categories ticked and tags filled in at first (the model's choice, for review). */
  chosen?: { categories: number[]; tags: string[] };
}) {
  const { t } = useTranslation('wordpress');
  return (
    <>
      <fieldset>
        <legend className="text-sm font-medium text-slate-800">{t('publish.categories')}</legend>
        {categoriesFailed ? <p className="text-sm text-red-700">{t('publish.categoriesFailed')}</p> : null}
        {!categoriesFailed && categories.length === 0 ? <p className="text-sm text-slate-600">{t('publish.noCategories')}</p> : null}
        <div className="mt-2 flex flex-wrap gap-3">
          {categories.map((c) => (
            <label key={c.id} className="flex items-center gap-2 text-sm text-slate-800">
              <input type="checkbox" name="categories" value={c.id} defaultChecked={chosen?.categories.includes(c.id)} className="size-4" />
              {c.name}
            </label>
          ))}
        </div>
      </fieldset>
      <Field
        label={t('publish.tags')}
        inputProps={{ name: tagsName, defaultValue: chosen?.tags.join(', ') }}
        help={t('publish.tagsHelp')}
      />
    </>
  );
}
