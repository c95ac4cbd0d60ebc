import { getFormProps, getInputProps, getSelectProps, getTextareaProps, useForm, type SubmissionResult } from '@conform-to/react';
import { Form, useNavigation } from '@remix-run/react';
import { useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { FormAlert } from '~/components/auth-shell';
import { Icon } from '~/components/icons';
import { Badge } from '~/components/ui/badge';
import { Button } from '~/components/ui/button';
import { ButtonLink } from '~/components/ui/button-link';
import {
  articleTypes,
  aspectRatios,
  contentLanguages,
  contentLengths,
  DEFAULT_IMAGE_MODEL,
  DEFAULT_TEXT_MODEL,
  EMBED_IMAGE_CREDITS,
  findModel,
  GUIDANCE,
  modelsOfKind,
  OUTPUTS,
  pointsOfView,
  readingLevels,
  runCost,
  structureFlags,
  stylePresets,
  tones,
  writingStyles,
  type ModelKind,
} from '~/catalogue';
import type { Translate } from '~/utils/generation-schema';
import { splitTopics } from '~/utils/text-lines';
import { onDemand, useOnDemand } from '~/components/on-demand';
import type { ImageSettingValues, TextSettingValues } from '~/utils/input-settings';
import { CheckboxField, SelectField, type Option } from './fields';
import { TopicsField } from './topics-field';
import { useHydrated } from './use-hydrated';
import { AppLink } from '~/components/ui/app-link';

/** The values the form starts from: the catalogue defaults today, last-used values or a template later. */
export type GenerationFormValues = {
  type: ModelKind;
  prompts: string;
  embedImage: boolean;
  planFirst?: boolean;
  qualityGate?: boolean;
} & TextSettingValues &
  Omit<ImageSettingValues, 'model'>;

/** Where the input tools (another feature) plug in, without this form knowing them. */
export type GenerationFormSlots = {
  /** Above the form, e.g. the active-template banner and the template buttons. */
  banner?: ReactNode;
  /** Next to the topics label, e.g. the CSV toggle and the generate-titles button. */
  topicsToolbar?: ReactNode;
  /** In place of the text area, e.g. the CSV drop zone while importing. */
  topicsReplacement?: ReactNode;
};

export type GenerationFormProps = {
  type: ModelKind;
  isPro: boolean;
  /** The account's spendable credits (for the usage line). */
  credits: number;
  maxTopics: number;
  initialValues: GenerationFormValues;
  /** Last four characters of a saved image-provider key, if any. */
  savedImageKey: string | null;
  lastResult?: SubmissionResult<string[]> | null;
  /** A message from the service (insufficient credits, Pro-only, no API key), shown above Start. */
  serviceError?: { title: string; message: string; code?: string } | null;
  slots?: GenerationFormSlots;
  /** Without JavaScript, the first Start's answer: the run's figures, to confirm before anything is spent. */
  confirm?: RunQuote | null;
};

export type RunQuote = { count: number; cost: number; credits: number };

export const GENERATION_FORM_ID = 'generation';

const formValidation = onDemand(() => import('./form-validation'));
/** The confirm step's field: the figures the reader agreed to (the run starts only at those). */
export const CONFIRMED_FIELD = 'confirmed';
export const confirmedValue = ({ count, cost }: { count: number; cost: number }) => `${count}:${cost}`;

/** 'on' / true / 'true' → true (Conform serialises checkboxes as 'on'). */
const checked = (v: unknown) => v === true || v === 'on' || v === 'true';

// Option lists whose labels are their values never change: built once, not per render.
const untranslated = (values: readonly string[]): Option[] => values.map((value) => ({ value, label: value }));
const aspectRatioOptions = untranslated(aspectRatios);
const outputOptions = untranslated(Array.from({ length: OUTPUTS.max - OUTPUTS.min + 1 }, (_, i) => String(OUTPUTS.min + i)));
const freeText = findModel(DEFAULT_TEXT_MODEL)!.label;
const freeImage = findModel(DEFAULT_IMAGE_MODEL)!.label;

type TranslatedOptions = Record<
  'language' | 'tone' | 'pointOfView' | 'articleType' | 'readingLevel' | 'contentLength' | 'writingStyle' | 'stylePreset',
  Option[]
> & {
  /** Per `${type}:${isPro}`: the model lists, labelled with credits and the Pro-only mark. */
  models: Map<string, Option[]>;
};

/**
 * The translated option lists of a language, built on its first render and kept while the
 * translator's workspace catalogue is the same object (adding a namespace's texts replaces it).
 */
const translatedOptions = new WeakMap<object, { bundle: unknown; options: TranslatedOptions }>();
function optionsOf(i18n: { language: string; getResourceBundle: (lng: string, ns: string) => unknown }, t: Translate): TranslatedOptions {
  const bundle = i18n.getResourceBundle(i18n.language, 'workspace');
  const cached = translatedOptions.get(i18n);
  if (cached && cached.bundle === bundle) return cached.options;
  const option = (group: string, values: readonly string[]): Option[] =>
    values.map((value) => ({ value, label: t(`options.${group}.${value}`, { defaultValue: value }) }));
  const options: TranslatedOptions = {
    language: languagesInReadingOrder(option('language', contentLanguages), bundle),
    tone: option('toneOfVoice', tones),
    pointOfView: option('pointOfView', pointsOfView),
    articleType: option('articleType', articleTypes),
    readingLevel: option('readingLevel', readingLevels),
    contentLength: option('contentLength', contentLengths),
    writingStyle: option('writingStyle', writingStyles),
    stylePreset: option('stylePreset', stylePresets),
    models: new Map(),
  };
  translatedOptions.set(i18n, { bundle, options });
  return options;
}

/**
 * The output languages in the order their names are listed in the page language's catalogue, so a
 * Chinese reader gets them in Chinese order (not sorted at run time: the server render and the
 * browser must agree); a language the catalogue does not name yet comes last, under its own name.
 */
function languagesInReadingOrder(options: Option[], bundle: unknown): Option[] {
  const names = (bundle as { options?: { language?: Record<string, string> } } | undefined)?.options?.language ?? {};
  const rank = new Map(Object.keys(names).map((value, i) => [value, i]));
  return [...options].sort((a, b) => (rank.get(a.value) ?? rank.size) - (rank.get(b.value) ?? rank.size));
}

function modelOptionsOf(options: TranslatedOptions, t: Translate, type: ModelKind, isPro: boolean): Option[] {
  const key = `${type}:${isPro}`;
  let list = options.models.get(key);
  if (!list) {
    list = modelsOfKind(type).map((m) => {
      const locked = m.proOnly && !isPro;
      return {
        value: m.id,
        label: `${m.label} · ${t('form.model.credits', { count: m.credits })}${locked ? ` ${t('form.model.proOnly')}` : ''}`,
        disabled: locked,
      };
    });
    options.models.set(key, list);
  }
  return list;
}

export function GenerationForm({
  type,
  isPro,
  credits,
  maxTopics,
  initialValues,
  savedImageKey,
  lastResult,
  serviceError,
  slots,
  confirm,
}: GenerationFormProps) {
  const { t, i18n } = useTranslation('workspace');
  const { t: tg } = useTranslation('generation');
  const hydrated = useHydrated();
  const navigation = useNavigation();
  const submitting = navigation.state !== 'idle' && navigation.formMethod === 'POST' && navigation.formData?.get('intent') === 'generate';
  // The validation's script comes when the reader first touches the form (or the server has
  // answered with errors); the server render never validates.
  const [touched, setTouched] = useState(false);
  const validation = useOnDemand(formValidation, touched || Boolean(lastResult));
  const validate = useMemo(() => validation?.generationFormValidator(tg as Translate, maxTopics), [validation, tg, maxTopics]);

  type FormShape = GenerationFormValues & { replicateApiKey?: string };
  const [form, fields] = useForm<FormShape, unknown>({
    id: GENERATION_FORM_ID,
    lastResult: lastResult ?? undefined,
    defaultValue: initialValues,
    // Without the validation (not there yet, or not downloadable) Start posts the form unchecked and
    // the server checks it; the fields are then checked again on the next Start, not on each input.
    onValidate: validate ? ({ formData }) => validate(formData) : undefined,
    shouldValidate: 'onSubmit',
    shouldRevalidate: validate ? 'onInput' : 'onSubmit',
  });

  // The model resets with the generation type: an initial value of the other kind is ignored.
  const defaultModel = type === 'text' ? DEFAULT_TEXT_MODEL : DEFAULT_IMAGE_MODEL;
  const initialModel = findModel(String(fields.model.initialValue ?? ''));
  const modelDefault = initialModel?.kind === type && (isPro || !initialModel.proOnly) ? initialModel.id : defaultModel;
  const liveModel = findModel(String(fields.model.value ?? ''));
  const model = liveModel?.kind === type ? liveModel : findModel(modelDefault)!;

  const topics = splitTopics(String(fields.prompts.value ?? ''));
  const embedImage = type === 'text' && checked(fields.embedImage.value);
  const cost = runCost(model, topics.length, embedImage);
  // The cost against the balance before Start: with the page's script, a run the balance
  // cannot pay keeps Start disabled and says why, with the way to more credits. Without it the
  // topics are counted by the server, whose refusal carries the same link.
  const short = hydrated && topics.length > 0 && cost > credits;
  const shortId = `${GENERATION_FORM_ID}-short`;
  const guidance = Number(fields.guidanceScale.value ?? initialValues.guidanceScale);

  const options = optionsOf(i18n, t as Translate);
  const modelOptions = modelOptionsOf(options, t as Translate, type, isPro);

  const formErrors = [...(form.errors ?? [])];

  return (
    <div className="flex flex-col gap-6">
      {slots?.banner}
      <nav aria-label={t('form.type.label')}>
        <ul className="inline-flex rounded-lg bg-slate-100 p-1">
          {(['text', 'image'] as const).map((kind) => (
            <li key={kind}>
              <AppLink
                to={kind === 'text' ? '/app' : '/app?type=image'}
                replace
                preventScrollReset
                aria-current={kind === type ? 'page' : undefined}
                className={`inline-flex items-center gap-2 rounded-md px-4 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-indigo-600 ${
                  kind === type ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-700 hover:text-slate-900'
                }`}
              >
                <Icon name={kind === 'text' ? 'file' : 'image'} className="size-4" />
                {t(`form.type.${kind}`)}
              </AppLink>
            </li>
          ))}
        </ul>
      </nav>

      <Form
        method="post"
        action={type === 'image' ? '/app?type=image' : '/app'}
        {...getFormProps(form)}
        onFocus={touched ? undefined : () => setTouched(true)}
        onPointerDown={touched ? undefined : () => setTouched(true)}
        aria-label={t('form.label')}
        className="flex flex-col gap-6"
      >
        <input type="hidden" name="intent" value="generate" />
        <input type="hidden" name="type" value={type} />
        {/* With the page's script the run opens in the Results tab; without it, on its progress page. */}
        {hydrated ? <input type="hidden" name="js" value="1" /> : null}

        <div className="flex flex-col gap-2">
          <SelectField
            label={t('form.model.label')}
            options={modelOptions}
            errors={fields.model.errors}
            selectProps={{ ...getSelectProps(fields.model), key: `${type}-${fields.model.key ?? ''}`, defaultValue: modelDefault }}
          />
          {isPro ? (
            <p>
              <Badge tone="success">
                <Icon name="check" className="size-3.5" />
                {t('form.model.allAvailable')}
              </Badge>
            </p>
          ) : (
            <div
              className="flex flex-wrap items-center justify-between gap-2 rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-900 ring-1 ring-amber-200"
              data-testid="free-model-notice"
            >
              <p className="flex items-start gap-2">
                <Icon name="info" className="mt-0.5 size-4 shrink-0" />
                {t('form.model.freeNotice', { text: freeText, image: freeImage })}
              </p>
              <ButtonLink to="/subscription" variant="secondary" size="sm">
                {t('form.model.upgrade')}
              </ButtonLink>
            </div>
          )}
        </div>

        <TopicsField
          kind={type}
          count={topics.length}
          textareaProps={getTextareaProps(fields.prompts)}
          errors={fields.prompts.errors}
          toolbar={slots?.topicsToolbar}
          replacement={slots?.topicsReplacement}
        />

        {type === 'text' ? (
          <fieldset className="flex flex-col gap-4">
            <legend className="mb-3 text-base font-semibold text-slate-900">{t('form.textSettings')}</legend>
            <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
              <SelectField
                label={t('form.language')}
                options={options.language}
                errors={fields.language.errors}
                selectProps={getSelectProps(fields.language)}
              />
              <SelectField
                label={t('form.toneOfVoice')}
                options={options.tone}
                errors={fields.toneOfVoice.errors}
                selectProps={getSelectProps(fields.toneOfVoice)}
              />
              <SelectField
                label={t('form.pointOfView')}
                options={options.pointOfView}
                errors={fields.pointOfView.errors}
                selectProps={getSelectProps(fields.pointOfView)}
              />
              <SelectField
                label={t('form.articleType')}
                options={options.articleType}
                errors={fields.articleType.errors}
                selectProps={getSelectProps(fields.articleType)}
              />
              <SelectField
                label={t('form.readingLevel')}
                options={options.readingLevel}
                errors={fields.readingLevel.errors}
                selectProps={getSelectProps(fields.readingLevel)}
              />
              <SelectField
                label={t('form.contentLength')}
                options={options.contentLength}
                errors={fields.contentLength.errors}
                selectProps={getSelectProps(fields.contentLength)}
              />
              <SelectField
                label={t('form.writingStyle')}
                options={options.writingStyle}
                errors={fields.writingStyle.errors}
                selectProps={getSelectProps(fields.writingStyle)}
              />
            </div>
          </fieldset>
        ) : null}

        {type === 'text' ? (
          <CheckboxField
            label={t('form.planFirst')}
            help={t('form.planFirstHelp')}
            inputProps={getInputProps(fields.planFirst, { type: 'checkbox' })}
          />
        ) : null}

        {type === 'text' ? (
          <CheckboxField
            label={t('quality.gateRun')}
            help={t('quality.gateRunHelp')}
            inputProps={getInputProps(fields.qualityGate, { type: 'checkbox' })}
          />
        ) : null}

        <fieldset className="flex flex-col gap-4">
          <legend className="mb-3 text-base font-semibold text-slate-900">{t('form.imageSettings')}</legend>
          {type === 'text' ? (
            <CheckboxField
              label={t('form.embedImage')}
              help={t('form.embedImageHelp', { count: EMBED_IMAGE_CREDITS })}
              inputProps={getInputProps(fields.embedImage, { type: 'checkbox' })}
            />
          ) : null}
          <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
            <SelectField
              label={t('form.aspectRatio')}
              options={aspectRatioOptions}
              errors={fields.aspectRatio.errors}
              selectProps={getSelectProps(fields.aspectRatio)}
            />
            <SelectField
              label={t('form.stylePreset')}
              options={options.stylePreset}
              errors={fields.stylePreset.errors}
              selectProps={getSelectProps(fields.stylePreset)}
            />
            {type === 'image' ? (
              <SelectField
                label={t('form.numOutputs')}
                options={outputOptions}
                errors={fields.numOutputs.errors}
                selectProps={getSelectProps(fields.numOutputs)}
              />
            ) : null}
          </div>
          <GuidanceSlider
            inputProps={getInputProps(fields.guidanceScale, { type: 'range' })}
            value={Number.isFinite(guidance) ? guidance : GUIDANCE.default}
            // Disabled while embedding is off; without the page's script it stays usable,
            // since ticking the box could not enable it.
            disabled={hydrated && type === 'text' && !embedImage}
            errors={fields.guidanceScale.errors}
          />
        </fieldset>

        {type === 'text' ? (
          <fieldset>
            <legend className="mb-3 text-base font-semibold text-slate-900">{t('form.structure')}</legend>
            <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
              {structureFlags.map((flag) => (
                <CheckboxField key={flag} label={t(`form.flags.${flag}`)} inputProps={getInputProps(fields[flag], { type: 'checkbox' })} />
              ))}
            </div>
          </fieldset>
        ) : null}

        <div className="flex flex-col gap-1.5 sm:max-w-md">
          <label htmlFor={fields.replicateApiKey.id} className="text-sm font-medium text-slate-800">
            {t('form.apiKey.label')}
          </label>
          <input
            id={fields.replicateApiKey.id}
            name={fields.replicateApiKey.name}
            type="password"
            autoComplete="off"
            aria-describedby={`${fields.replicateApiKey.id}-help`}
            placeholder={savedImageKey ? `••••${savedImageKey}` : 'r8_…'}
            className="block w-full rounded-lg border-0 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 placeholder:text-slate-400 focus:ring-2 focus:ring-inset focus:ring-indigo-600"
          />
          <p id={`${fields.replicateApiKey.id}-help`} className="text-xs text-slate-600">
            {savedImageKey ? t('form.apiKey.saved', { last4: savedImageKey }) : t('form.apiKey.help')}
          </p>
        </div>

        {serviceError ? (
          <div className="flex flex-col gap-2" data-testid="service-error">
            <FormAlert title={serviceError.title} errors={[serviceError.message]} />
            {serviceError.code === 'insufficient_credits' && !short ? <MoreCredits isPro={isPro} /> : null}
          </div>
        ) : null}
        {!serviceError && formErrors.length ? <FormAlert id={form.errorId} title={t('form.errorTitle')} errors={formErrors} /> : null}

        {short ? (
          <div
            id={shortId}
            data-testid="credits-short"
            className="flex flex-col gap-2 rounded-lg bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200 sm:flex-row sm:items-center sm:justify-between"
          >
            <p className="flex items-start gap-2">
              <Icon name="alert" className="mt-0.5 size-4 shrink-0" />
              {t('form.short', { cost: t('form.usageCredits', { count: cost }), credits: t('form.usageCredits', { count: credits }) })}
            </p>
            <MoreCredits isPro={isPro} />
          </div>
        ) : null}

        {confirm && !serviceError ? (
          <div
            role="status"
            data-testid="confirm-start"
            className="flex flex-col gap-1 rounded-lg bg-indigo-50 p-3 text-sm text-indigo-950 ring-1 ring-indigo-200"
          >
            <p className="font-semibold">{t('form.confirmTitle')}</p>
            <p>
              {t(type === 'image' ? 'form.usageImage' : 'form.usage', { count: confirm.count, credits: confirm.cost })}{' '}
              {t('form.balance', { credits: t('form.usageCredits', { count: confirm.credits }) })}
            </p>
            <p>{t('form.confirmNote')}</p>
            <input type="hidden" name={CONFIRMED_FIELD} value={confirmedValue(confirm)} />
          </div>
        ) : null}

        <div className="flex flex-col gap-3 border-t border-slate-200 pt-6 sm:flex-row sm:items-center sm:justify-between">
          <p className="text-sm text-slate-700" data-testid="usage-line" aria-live="polite">
            {/* The live count needs the page's script; without it (and before it runs) the rule. */}
            {hydrated || topics.length > 0
              ? t(type === 'image' ? 'form.usageImage' : 'form.usage', { count: topics.length, credits: cost })
              : t('form.usageStatic', { count: EMBED_IMAGE_CREDITS })}{' '}
            <span className="text-slate-600">{t('form.balance', { credits: t('form.usageCredits', { count: credits }) })}</span>
          </p>
          <Button type="submit" size="lg" pending={submitting} disabled={short} aria-describedby={short ? shortId : undefined}>
            <Icon name="sparkles" className="size-5" />
            {submitting ? t('form.starting') : confirm && !serviceError ? t('form.confirmStart') : t('form.start')}
          </Button>
        </div>
      </Form>
    </div>
  );
}

/** The way to more credits: the upgrade for a Free account, top-up packs for Pro (both on /subscription). */
function MoreCredits({ isPro }: { isPro: boolean }) {
  const { t } = useTranslation('workspace');
  return (
    <ButtonLink to="/subscription" variant="secondary" size="sm" className="self-start sm:self-auto">
      {isPro ? t('form.buyCredits') : t('form.model.upgrade')}
    </ButtonLink>
  );
}

function GuidanceSlider({
  inputProps,
  value,
  disabled,
  errors,
}: {
  inputProps: React.InputHTMLAttributes<HTMLInputElement> & { id: string; key?: string | number | null };
  value: number;
  disabled: boolean;
  errors?: ReadonlyArray<string> | null;
}) {
  const { t } = useTranslation('workspace');
  const { key, ...props } = inputProps;
  const helpId = `${props.id}-help`;
  return (
    <div className="flex flex-col gap-1.5 sm:max-w-md">
      <div className="flex items-center justify-between">
        <label htmlFor={props.id} className="text-sm font-medium text-slate-800">
          {t('form.guidanceScale')}
        </label>
        <output htmlFor={props.id} className="text-sm font-semibold tabular-nums text-slate-900">
          {value.toFixed(1)}
        </output>
      </div>
      <input
        key={key ?? undefined}
        {...props}
        min={GUIDANCE.min}
        max={GUIDANCE.max}
        step={GUIDANCE.step}
        disabled={disabled}
        aria-describedby={helpId}
        className="w-full accent-indigo-600 disabled:cursor-not-allowed disabled:opacity-50"
      />
      <p id={helpId} className="text-xs text-slate-600">
        {disabled ? t('form.guidanceDisabled') : t('form.guidanceHelp')}
      </p>
      {errors?.length ? <p className="text-sm text-red-600">{errors[0]}</p> : null}
    </div>
  );
}
