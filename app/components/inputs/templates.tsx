import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { findModel } from '~/catalogue';
import { Icon } from '~/components/icons';
import { Badge } from '~/components/ui/badge';
import { Button, buttonClass } from '~/components/ui/button';
import { inputClass } from '~/components/ui/input';
import { TEMPLATE_NAME_MAX, type TemplateSettings, type TemplateType } from '~/utils/input-settings';
import { formatDate, useTimeZone } from '~/utils/time-zone';
import { Modal } from './modal';
import { showToast } from '~/components/ui/toast';
import { errorOf } from './response-error';
import { useDomId } from '~/components/ui/use-dom-id';
import { TEMPLATE_PARAM, TEMPLATES_PAGE } from './template-buttons';
import { AppLink } from '~/components/ui/app-link';

// The buttons and the banner that sit on the workspace are in template-buttons.tsx, loaded with the
// page; this module (the dialog, its list and its name form) is loaded when the dialog first opens.
export { ActiveTemplateBanner, CARRY_FIELD, SaveCurrentButton, TEMPLATE_PARAM, TEMPLATES_PAGE, TemplatesButton } from './template-buttons';

export type TemplateItem = { id: string; name: string; type: TemplateType; settings: TemplateSettings; createdAt: string };

/** Where a template is loaded without JavaScript: the workspace with ?template=<id>. */
export const templateHref = (id: string) => `/app?${TEMPLATE_PARAM}=${encodeURIComponent(id)}`;

function detailOf(template: TemplateItem): string {
  if (template.type === 'image') {
    const s = template.settings as { aspectRatio?: string };
    return s.aspectRatio ?? '1:1';
  }
  const model = (template.settings as { model?: string }).model;
  return findModel(model)?.label ?? model ?? '';
}

/**
 * The list of the Templates dialog (300 px high, scrolls): name, type icon, created date, model
 * name or aspect ratio, Load and Delete (with a confirmation in a <details>). Every button is a real
 * form or link, so the list works without JavaScript on the templates page; with JavaScript `onLoad`
 * and `onDelete` take over.
 */
export function TemplateList({
  templates,
  type,
  onLoad,
  onDelete,
  busyId,
}: {
  templates: TemplateItem[];
  type: TemplateType;
  onLoad?: (template: TemplateItem) => void;
  onDelete?: (template: TemplateItem) => void;
  busyId?: string | null;
}) {
  const { t, i18n } = useTranslation('inputs');
  const timeZone = useTimeZone();
  if (!templates.length) {
    return (
      <div
        className="flex h-[300px] flex-col items-center justify-center gap-2 rounded-xl bg-slate-50 text-center ring-1 ring-slate-200"
        data-testid="templates-empty"
      >
        <Icon name="layers" className="size-8 text-slate-500" />
        <p className="text-sm font-semibold text-slate-900">{t('templates.emptyTitle')}</p>
        <p className="text-sm text-slate-600">{t('templates.emptyBody')}</p>
      </div>
    );
  }
  return (
    <ul
      aria-label={t('templates.listLabel')}
      className="h-[300px] divide-y divide-slate-100 overflow-y-auto rounded-xl ring-1 ring-slate-200"
      data-testid="templates-list"
    >
      {templates.map((template) => (
        <li key={template.id} className="flex items-center gap-3 p-3">
          <span className="flex size-9 shrink-0 items-center justify-center rounded-lg bg-indigo-50 text-indigo-700" aria-hidden="true">
            <Icon name={template.type === 'image' ? 'image' : 'file'} className="size-5" />
          </span>
          <div className="min-w-0 flex-1">
            {/* The name loads the template too, as Load does (clicking it did nothing). */}
            <AppLink
              to={templateHref(template.id)}
              onClick={(event) => {
                if (!onLoad) return;
                event.preventDefault();
                onLoad(template);
              }}
              data-testid="template-name"
              className="block truncate text-sm font-semibold text-slate-900 hover:text-indigo-700 hover:underline focus-visible:outline-2 focus-visible:outline-indigo-600"
            >
              {template.name}
            </AppLink>
            <p className="truncate text-xs text-slate-600">
              {t('templates.created', { date: formatDate(template.createdAt, i18n.language, timeZone) })} · {detailOf(template)}
            </p>
          </div>
          <AppLink
            to={templateHref(template.id)}
            onClick={(event) => {
              if (!onLoad) return;
              event.preventDefault();
              onLoad(template);
            }}
            aria-label={t('templates.loadNamed', { name: template.name })}
            className={buttonClass('secondary', 'sm')}
          >
            {t('templates.load')}
          </AppLink>
          <details className="relative">
            <summary
              aria-label={t('templates.deleteNamed', { name: template.name })}
              className="flex cursor-pointer list-none items-center rounded-lg p-2 text-slate-600 hover:bg-red-50 hover:text-red-600 focus-visible:outline-2 focus-visible:outline-red-600 [&::-webkit-details-marker]:hidden"
            >
              <Icon name="x" className="size-4" />
            </summary>
            <form
              method="post"
              action={TEMPLATES_PAGE}
              onSubmit={(event: FormEvent) => {
                if (!onDelete) return;
                event.preventDefault();
                onDelete(template);
              }}
              role="group"
              aria-label={t('templates.deleteConfirmTitle')}
              className="absolute right-0 z-10 mt-1 w-64 rounded-xl bg-white p-3 shadow-lg ring-1 ring-slate-200"
            >
              <input type="hidden" name="intent" value="delete" />
              <input type="hidden" name="id" value={template.id} />
              <input type="hidden" name="type" value={type} />
              <p className="text-sm font-semibold text-slate-900">{t('templates.deleteConfirmTitle')}</p>
              <p className="mt-1 text-xs text-slate-600">{t('templates.deleteConfirmBody', { name: template.name })}</p>
              <div className="mt-3 flex justify-end">
                <Button type="submit" variant="destructive" size="sm" pending={busyId === template.id}>
                  {t('templates.deleteConfirm')}
                </Button>
              </div>
            </form>
          </details>
        </li>
      ))}
    </ul>
  );
}

/** The nested Save Template form: Template Name (placeholder 'My Template'), Cancel / Save Template, disabled while empty. */
export function SaveTemplateForm({
  type,
  hidden,
  onSave,
  onCancel,
  cancelHref,
  pending = false,
}: {
  type: TemplateType;
  /** Settings carried as hidden fields (the no-JavaScript save). */
  hidden?: Record<string, string>;
  onSave?: (name: string) => void;
  onCancel?: () => void;
  cancelHref?: string;
  pending?: boolean;
}) {
  const { t } = useTranslation('inputs');
  const id = useDomId();
  const [name, setName] = useState('');
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return (
    <form
      method="post"
      action={TEMPLATES_PAGE}
      className="mt-4 flex flex-col gap-4"
      onSubmit={(event) => {
        if (!onSave) return;
        event.preventDefault();
        if (!name.trim()) {
          showToast({ type: 'error', title: t('templates.nameRequiredTitle'), description: t('templates.nameRequiredBody') });
          return;
        }
        onSave(name.trim());
      }}
    >
      <input type="hidden" name="intent" value="save" />
      <input type="hidden" name="type" value={type} />
      {Object.entries(hidden ?? {}).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      <div className="flex flex-col gap-1.5">
        <label htmlFor={id} className="text-sm font-medium text-slate-800">
          {t('templates.nameLabel')}
        </label>
        <input
          id={id}
          name="name"
          data-autofocus
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          placeholder={t('templates.namePlaceholder')}
          maxLength={TEMPLATE_NAME_MAX}
          required
          className={inputClass}
        />
      </div>
      <div className="flex justify-end gap-2">
        {onCancel ? (
          <Button variant="secondary" onClick={onCancel}>
            {t('templates.cancel')}
          </Button>
        ) : (
          <AppLink to={cancelHref ?? TEMPLATES_PAGE} className={buttonClass('secondary')}>
            {t('templates.cancel')}
          </AppLink>
        )}
        <Button type="submit" pending={pending} disabled={hydrated && !name.trim()}>
          {t('templates.save')}
        </Button>
      </div>
    </form>
  );
}

export function TypeBadge({ type }: { type: TemplateType }) {
  const { t } = useTranslation('inputs');
  return <Badge tone="brand">{type === 'image' ? t('templates.typeImage') : t('templates.typeText')}</Badge>;
}

/**
 * Templates dialog, opened by the page's script (its no-JavaScript form is /app/templates).
 * `currentSettings` gives the form's settings for Save Current; choosing a template calls `onLoad`
 * and closes the dialog (the workspace applies it with applyTemplate() and shows 'Template loaded').
 */
export function TemplatesDialog({
  type,
  onClose,
  onLoad,
  onDeleted,
  currentSettings,
  startSaving = false,
}: {
  type: TemplateType;
  /** Opened by the workspace's own Save Current: straight to the name form. */
  startSaving?: boolean;
  onClose: () => void;
  onLoad: (template: TemplateItem) => void;
  /** A template was deleted (the workspace clears its banner when it was the active one). */
  onDeleted?: (template: TemplateItem) => void;
  currentSettings: () => Record<string, unknown>;
}) {
  const { t } = useTranslation('inputs');
  const [templates, setTemplates] = useState<TemplateItem[] | null>(null);
  const [saving, setSaving] = useState(false);
  const [savingOpen, setSavingOpen] = useState(startSaving);
  const [busyId, setBusyId] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    const res = await fetch(`/api/templates?type=${type}`, { credentials: 'same-origin', headers: { accept: 'application/json' } });
    if (res.ok) setTemplates(((await res.json()) as { templates: TemplateItem[] }).templates);
    else setTemplates([]);
  }, [type]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  async function save(name: string) {
    setSaving(true);
    try {
      const settings = currentSettings();
      const res = await fetch('/api/templates', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ name, type, settings, ...settings }),
      });
      if (!res.ok) {
        showToast({ type: 'error', title: t('templates.saveFailedTitle'), description: await errorOf(res) });
        return;
      }
      showToast({ type: 'success', title: t('templates.savedTitle') });
      setSavingOpen(false);
      await refresh();
    } catch {
      showToast({ type: 'error', title: t('templates.saveFailedTitle'), description: t('templates.saveFailedBody') });
    } finally {
      setSaving(false);
    }
  }

  async function remove(template: TemplateItem) {
    setBusyId(template.id);
    try {
      const res = await fetch(`/api/templates/${template.id}`, {
        method: 'DELETE',
        credentials: 'same-origin',
        headers: { accept: 'application/json' },
      });
      if (!res.ok) {
        showToast({ type: 'error', title: t('templates.deleteFailedTitle'), description: await errorOf(res) });
        return;
      }
      showToast({ type: 'success', title: t('templates.deletedTitle') });
      onDeleted?.(template);
      await refresh();
    } finally {
      setBusyId(null);
    }
  }

  return (
    <>
      <Modal
        title={t('templates.title')}
        description={t('templates.description')}
        onClose={onClose}
        closeLabel={t('templates.close')}
        badge={<TypeBadge type={type} />}
      >
        <div className="mt-4 flex justify-end">
          <Button size="sm" onClick={() => setSavingOpen(true)}>
            {t('templates.saveCurrent')}
          </Button>
        </div>
        <div className="mt-3">
          {templates === null ? (
            <p className="flex h-[300px] items-center justify-center text-sm text-slate-600" role="status">
              {t('templates.loading')}
            </p>
          ) : (
            <TemplateList
              templates={templates}
              type={type}
              busyId={busyId}
              onDelete={(template) => void remove(template)}
              onLoad={(template) => {
                onLoad(template);
                showToast({
                  type: 'success',
                  title: t('templates.loadedTitle'),
                  description: t('templates.loadedBody', { name: template.name }),
                });
                onClose();
              }}
            />
          )}
        </div>
      </Modal>
      {savingOpen ? (
        <Modal
          size="sm"
          title={t('templates.saveDialogTitle')}
          description={t('templates.saveDialogDescription', {
            type: type === 'image' ? t('templates.typeImage') : t('templates.typeText'),
          })}
          onClose={() => setSavingOpen(false)}
          closeLabel={t('templates.close')}
        >
          <SaveTemplateForm type={type} pending={saving} onCancel={() => setSavingOpen(false)} onSave={(name) => void save(name)} />
        </Modal>
      ) : null}
    </>
  );
}
