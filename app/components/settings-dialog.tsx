import { Form, useNavigation, useRouteLoaderData } from '@remix-run/react';
import { SETTINGS_PARAM, useSettingsLinks } from '~/components/settings-param';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { GUIDANCE, OUTPUTS, aspectRatios, canUseModel, modelsOfKind, stylePresets, type SubscriptionStatus } from '~/catalogue';
import { Button, buttonClass } from '~/components/ui/button';
import { UrlDialog } from '~/components/ui/dialog';
import { inputClass } from '~/components/ui/input';
import type { loader as rootLoader } from '~/root';
import { useDomId } from '~/components/ui/use-dom-id';
import { AppLink } from '~/components/ui/app-link';

export { SETTINGS_PARAM, useSettingsLinks };

const selectClass = `${inputClass} pr-8`;

function SelectField({
  label,
  name,
  defaultValue,
  children,
}: {
  label: string;
  name: string;
  defaultValue: string;
  children: React.ReactNode;
}) {
  const id = useDomId();
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={id} className="text-sm font-medium text-slate-800">
        {label}
      </label>
      <select id={id} name={name} defaultValue={defaultValue} className={selectClass}>
        {children}
      </select>
    </div>
  );
}

function KeyField({ name, label, mask }: { name: 'openRouterApiKey' | 'replicateApiKey'; label: string; mask: string | null }) {
  const { t } = useTranslation('inputs');
  const id = useDomId();
  const removeName = name === 'openRouterApiKey' ? 'removeOpenRouterApiKey' : 'removeReplicateApiKey';
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={id} className="text-sm font-medium text-slate-800">
        {label}
      </label>
      <input
        id={id}
        name={name}
        type="password"
        autoComplete="off"
        spellCheck={false}
        aria-describedby={`${id}-saved`}
        className={inputClass}
      />
      <p id={`${id}-saved`} className="text-xs text-slate-600" data-testid={`${name}-mask`}>
        {mask ? t('settings.savedKey', { mask }) : t('settings.noKey')}
      </p>
      {mask ? (
        <label className="flex items-center gap-2 text-sm text-slate-700">
          <input type="checkbox" name={removeName} className="size-4 rounded border-slate-300" />
          {t('settings.removeKey')}
        </label>
      ) : null}
    </div>
  );
}

/**
 * The user's time zone, from the zones the server lists. With JavaScript, the browser's own zone is
 * offered when it differs (read after hydration, so the server's render and the browser's agree).
 */
function TimeZoneField({ value, choices }: { value: string; choices: { value: string; label: string }[] }) {
  const { t } = useTranslation('inputs');
  const id = useDomId();
  const [zone, setZone] = useState(value);
  const [browser, setBrowser] = useState<string | null>(null);
  useEffect(() => {
    try {
      setBrowser(Intl.DateTimeFormat().resolvedOptions().timeZone);
    } catch {
      // No zone from this browser: nothing to offer.
    }
  }, []);
  const offer = browser && browser !== zone && choices.some((c) => c.value === browser) ? browser : null;
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={id} className="text-sm font-medium text-slate-800">
        {t('settings.timeZone')}
      </label>
      <select
        id={id}
        name="timeZone"
        value={zone}
        onChange={(e) => setZone(e.currentTarget.value)}
        aria-describedby={`${id}-hint`}
        className={selectClass}
      >
        {choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
      <p id={`${id}-hint`} className="text-xs text-slate-600">
        {t('settings.timeZoneHint')}
      </p>
      {offer ? (
        <p className="text-xs text-slate-700" data-testid="browser-time-zone">
          {t('settings.timeZoneBrowser', { zone: offer })}{' '}
          <button type="button" onClick={() => setZone(offer)} className="font-medium text-indigo-700 hover:underline">
            {t('settings.timeZoneUseBrowser')}
          </button>
        </p>
      ) : null}
    </div>
  );
}

/** Settings dialog: API keys, default models, time zone, dark mode, auto-save and image defaults. A plain form post (works without JavaScript). */
export function SettingsDialog() {
  const { t } = useTranslation();
  const { t: ti } = useTranslation('inputs');
  const { t: tt } = useTranslation('tokens');
  const { isOpen, closeHref } = useSettingsLinks();
  const root = useRouteLoaderData<typeof rootLoader>('root');
  const navigation = useNavigation();
  const settings = root?.settings ?? null;
  const status: SubscriptionStatus = (root?.user?.subscriptionStatus as SubscriptionStatus | undefined) ?? 'free';
  const [guidance, setGuidance] = useState<number | null>(null);
  if (!isOpen) return null;
  const saving = navigation.state === 'submitting' && navigation.formAction === '/settings';
  return (
    <UrlDialog title={t('settings.title')} closeTo={closeHref} closeLabel={t('settings.close')}>
      {!settings ? (
        <p className="mt-2 text-sm text-slate-700">{ti('settings.description')}</p>
      ) : (
        <Form
          method="post"
          action="/settings"
          className="mt-4 flex max-h-[70vh] flex-col gap-6 overflow-y-auto pr-1"
          data-testid="settings-form"
        >
          <input type="hidden" name="redirectTo" value={closeHref} />
          <p className="text-sm text-slate-700">{ti('settings.description')}</p>
          <fieldset className="flex flex-col gap-4">
            <legend className="mb-1 text-sm font-semibold text-slate-900">{ti('settings.apiKeys')}</legend>
            <p className="text-xs text-slate-600">{ti('settings.apiKeysHint')}</p>
            <KeyField name="openRouterApiKey" label={ti('settings.openRouterApiKey')} mask={settings.openRouterApiKey} />
            <KeyField name="replicateApiKey" label={ti('settings.replicateApiKey')} mask={settings.replicateApiKey} />
            <p className="text-sm text-slate-700">
              {tt('page.manageHint')}{' '}
              <AppLink to="/settings/api-tokens" className="font-medium text-indigo-700 hover:underline">
                {tt('page.manage')}
              </AppLink>
            </p>
          </fieldset>
          <fieldset className="flex flex-col gap-4">
            <legend className="mb-1 text-sm font-semibold text-slate-900">{ti('settings.defaults')}</legend>
            <SelectField label={ti('settings.defaultTextModel')} name="defaultTextModel" defaultValue={settings.defaultTextModel}>
              {modelsOfKind('text').map((m) => (
                <option key={m.id} value={m.id} disabled={!canUseModel(status, m)}>
                  {m.label}
                  {m.proOnly && !canUseModel(status, m) ? ` ${ti('settings.proOnly')}` : ''}
                </option>
              ))}
            </SelectField>
            <SelectField label={ti('settings.defaultImageModel')} name="defaultImageModel" defaultValue={settings.defaultImageModel}>
              {modelsOfKind('image').map((m) => (
                <option key={m.id} value={m.id} disabled={!canUseModel(status, m)}>
                  {m.label}
                  {m.proOnly && !canUseModel(status, m) ? ` ${ti('settings.proOnly')}` : ''}
                </option>
              ))}
            </SelectField>
            <SelectField label={ti('settings.aspectRatio')} name="aspectRatio" defaultValue={settings.aspectRatio}>
              {aspectRatios.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </SelectField>
            <SelectField label={ti('settings.stylePreset')} name="stylePreset" defaultValue={settings.stylePreset}>
              {stylePresets.map((s) => (
                <option key={s} value={s}>
                  {ti(`styles.${s}`)}
                </option>
              ))}
            </SelectField>
            <div className="flex flex-col gap-1.5">
              {/* The value beside the label, not inside it: a label names one control, and an output is one too. */}
              <div className="flex justify-between text-sm font-medium text-slate-800">
                <label htmlFor="settings-guidance">{ti('settings.guidanceScale')}</label>
                <output htmlFor="settings-guidance" className="tabular-nums text-slate-700">
                  {(guidance ?? settings.guidanceScale).toFixed(1)}
                </output>
              </div>
              <input
                id="settings-guidance"
                name="guidanceScale"
                type="range"
                min={GUIDANCE.min}
                max={GUIDANCE.max}
                step={GUIDANCE.step}
                defaultValue={settings.guidanceScale}
                onChange={(e) => setGuidance(Number(e.currentTarget.value))}
                className="w-full accent-indigo-600"
              />
            </div>
            <div className="flex flex-col gap-1.5">
              <label htmlFor="settings-outputs" className="text-sm font-medium text-slate-800">
                {ti('settings.numOutputs')}
              </label>
              <input
                id="settings-outputs"
                name="numOutputs"
                type="number"
                min={OUTPUTS.min}
                max={OUTPUTS.max}
                step={1}
                defaultValue={settings.numOutputs}
                className={inputClass}
              />
            </div>
          </fieldset>
          {root?.timeZones ? <TimeZoneField value={settings.timeZone ?? root.timeZone} choices={root.timeZones} /> : null}
          <fieldset className="flex flex-col gap-3">
            <legend className="mb-1 text-sm font-semibold text-slate-900">{ti('settings.appearance')}</legend>
            <label className="flex items-center gap-2 text-sm text-slate-800">
              <input
                type="checkbox"
                name="darkMode"
                defaultChecked={settings.darkMode}
                className="size-4 rounded border-slate-300"
                // A preview at once; saving keeps it (and renders it from the server from then on).
                onChange={(e) => document.documentElement.classList.toggle('dark', e.currentTarget.checked)}
              />
              {ti('settings.darkMode')}
            </label>
            <label className="flex items-center gap-2 text-sm text-slate-800">
              <input type="checkbox" name="autoSave" defaultChecked={settings.autoSave} className="size-4 rounded border-slate-300" />
              {ti('settings.autoSave')}
            </label>
          </fieldset>
          <div className="flex flex-col gap-1">
            <p className="text-sm font-semibold text-slate-900">{ti('settings.developers')}</p>
            <p className="flex gap-4 text-sm">
              <AppLink to="/settings/webhooks" className="font-medium text-indigo-700 hover:underline">
                {ti('settings.webhooksLink')}
              </AppLink>
              <AppLink to="/api/docs" reloadDocument className="font-medium text-indigo-700 hover:underline">
                {ti('settings.apiDocsLink')}
              </AppLink>
            </p>
          </div>
          <div className="sticky bottom-0 flex justify-end gap-2 bg-white pt-2">
            <Button type="submit" pending={saving}>
              {saving ? ti('settings.saving') : ti('settings.save')}
            </Button>
          </div>
        </Form>
      )}
    </UrlDialog>
  );
}

/** A button-looking link that opens the settings dialog (the subscription page's "settings dialog"). */
export function SettingsButton({ className = '' }: { className?: string }) {
  const { t } = useTranslation();
  const { openHref } = useSettingsLinks();
  return (
    <AppLink to={openHref} preventScrollReset className={buttonClass('secondary', 'sm', className)}>
      {t('header.settings')}
    </AppLink>
  );
}
