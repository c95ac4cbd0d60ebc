import { useTranslation } from 'react-i18next';
import { Icon } from '~/components/icons';
import { buttonClass } from '~/components/ui/button';
import type { TemplateType } from '~/utils/input-settings';
import { AppLink } from '~/components/ui/app-link';

// What the workspace shows of its templates with the page: the Templates and Save Current buttons
// and the active template's banner. The dialog they open (templates.tsx) is loaded on the first click.

export const TEMPLATES_PAGE = '/app/templates';
export const TEMPLATE_PARAM = 'template';

/** The Templates button: opens the dialog with JavaScript, else goes to the templates page. */
export function TemplatesButton({ type, onOpen }: { type: TemplateType; onOpen?: () => void }) {
  const { t } = useTranslation('inputs');
  return (
    <AppLink
      to={`${TEMPLATES_PAGE}?type=${type}`}
      onClick={(event) => {
        if (!onOpen) return;
        event.preventDefault();
        onOpen();
      }}
      className={buttonClass('secondary', 'sm')}
    >
      <Icon name="layers" className="size-4" />
      {t('templates.open')}
    </AppLink>
  );
}

/** The submitter's field that makes a generation-form post to the templates page carry its settings there. */
export const CARRY_FIELD = 'saveTemplate';

/**
 * Save Current beside the Templates button. Without JavaScript it posts the generation form (the
 * `form` attribute; no nested forms) to the templates page, which opens its Save Template form with
 * the form's values; with it, the dialog opens on its name form (`onOpen`).
 */
export function SaveCurrentButton({ formId, onOpen }: { formId: string; onOpen?: (button: HTMLButtonElement) => void }) {
  const { t } = useTranslation('inputs');
  return (
    <button
      type="submit"
      form={formId}
      formAction={TEMPLATES_PAGE}
      formMethod="post"
      formEncType="application/x-www-form-urlencoded"
      formNoValidate
      name={CARRY_FIELD}
      value="1"
      onClick={(event) => {
        if (!onOpen) return;
        event.preventDefault();
        onOpen(event.currentTarget);
      }}
      className={buttonClass('secondary', 'sm')}
    >
      {t('templates.saveCurrent')}
    </button>
  );
}

/** Active-template banner with Clear (a link back to the plain workspace without JavaScript). */
export function ActiveTemplateBanner({ name, onClear, clearHref = '/app' }: { name: string; onClear?: () => void; clearHref?: string }) {
  const { t } = useTranslation('inputs');
  return (
    <div
      className="flex items-center justify-between gap-3 rounded-xl bg-indigo-50 px-4 py-2 ring-1 ring-indigo-200"
      role="status"
      data-testid="active-template"
    >
      <p className="flex items-center gap-2 text-sm font-medium text-indigo-900">
        <Icon name="layers" className="size-4" />
        {t('templates.active', { name })}
      </p>
      <AppLink
        to={clearHref}
        onClick={(event) => {
          if (!onClear) return;
          event.preventDefault();
          onClear();
        }}
        className={buttonClass('ghost', 'sm')}
      >
        {t('templates.clear')}
      </AppLink>
    </div>
  );
}
