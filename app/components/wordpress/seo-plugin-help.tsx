import { useTranslation } from 'react-i18next';

/** The companion plugin, served as a static file from public/wordpress/. */
const SEO_PLUGIN_URL = '/wordpress/postforge-seo.php';

/** Where to get the companion plugin (it lets WordPress store the SEO fields) and how to install it. */
export function SeoPluginHelp() {
  const { t } = useTranslation('wordpress');
  return (
    <section
      aria-labelledby="seo-plugin-title"
      className="mt-8 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200"
      data-testid="seo-plugin"
    >
      <h2 id="seo-plugin-title" className="text-lg font-semibold text-slate-900">
        {t('seoPlugin.title')}
      </h2>
      <p className="mt-2 text-sm text-slate-700">{t('seoPlugin.body')}</p>
      <ol className="mt-3 list-decimal space-y-1 pl-5 text-sm text-slate-800">
        <li>
          <a href={SEO_PLUGIN_URL} download className="font-medium text-indigo-700 underline">
            {t('seoPlugin.download')}
          </a>
        </li>
        <li>{t('seoPlugin.stepUpload')}</li>
        <li>{t('seoPlugin.stepActivate')}</li>
        <li>{t('seoPlugin.stepTest')}</li>
      </ol>
      <p className="mt-3 text-sm text-slate-600">{t('seoPlugin.without')}</p>
    </section>
  );
}
