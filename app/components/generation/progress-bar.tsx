import { useTranslation } from 'react-i18next';

export type RunProgressView = {
  id: string;
  totalPrompts: number;
  completedPrompts: number;
  failedPrompts: number;
  canceledPrompts: number;
  processingPrompts: number;
  refundedCredits: number;
  status: 'processing' | 'planned' | 'completed' | 'canceled';
};

type T = (key: string, options?: Record<string, unknown>) => string;

/**
 * The end-of-run (or cancel) toast in the reader's language: its title by how the run ended, its
 * body the run's story — completed / failed / canceled of the total, credits refunded — so a cancel
 * that came after every item had started does not read as if something had been stopped.
 */
export function runEndedToast(t: T, run: RunProgressView) {
  return {
    type: run.completedPrompts > 0 ? ('success' as const) : ('error' as const),
    title: run.status === 'canceled' ? t('toasts.generationCanceled') : t('toasts.generationComplete'),
    description: t('toasts.runSummary', {
      completed: run.completedPrompts,
      total: run.totalPrompts,
      failed: run.failedPrompts,
      canceled: run.canceledPrompts,
      count: run.refundedCredits,
    }),
  };
}

/** The toast after Cancel: what the cancel stopped and refunded, and what had started and will finish. */
export function cancelToast(t: T, run: RunProgressView) {
  return {
    type: 'info' as const,
    title: t('toasts.generationCanceled'),
    description: [
      t('toasts.canceledNow', { count: run.canceledPrompts }),
      run.processingPrompts > 0 ? t('toasts.stillFinishing', { count: run.processingPrompts }) : '',
    ]
      .filter(Boolean)
      .join(' '),
  };
}

/** The run's progress: a bar (done out of total) and its counts (completed, failed, canceled, refunded). */
export function RunProgressBar({ run }: { run: RunProgressView }) {
  const { t } = useTranslation('workspace');
  const done = run.totalPrompts - run.processingPrompts;
  const percent = run.totalPrompts > 0 ? Math.round((done / run.totalPrompts) * 100) : 100;
  const counts = [
    ['completed', 'progress.completed', run.completedPrompts, 'text-emerald-700'],
    ['failed', 'progress.failed', run.failedPrompts, 'text-red-700'],
    ['canceled', 'progress.canceledItems', run.canceledPrompts, 'text-slate-700'],
  ] as const;
  return (
    <div className="flex flex-col gap-2" data-testid="run-progress">
      <div
        role="progressbar"
        aria-label={t('progress.bar')}
        aria-valuemin={0}
        aria-valuemax={run.totalPrompts}
        aria-valuenow={done}
        aria-valuetext={`${percent}%`}
        className="h-2.5 w-full overflow-hidden rounded-full bg-slate-200"
      >
        <div
          className={`h-full rounded-full transition-all ${run.failedPrompts > 0 && run.status !== 'processing' && run.completedPrompts === 0 ? 'bg-red-500' : 'bg-indigo-600'}`}
          style={{ width: `${percent}%` }}
        />
      </div>
      <p className="text-sm text-slate-700" data-testid="run-counts">
        {t('progress.counts', { done, total: run.totalPrompts })}
      </p>
      <dl className="flex flex-wrap gap-x-4 gap-y-1 text-sm" data-testid="run-summary">
        {counts.map(([name, label, value, tone]) => (
          <div key={name} className="flex gap-1" data-testid={`run-${name}`}>
            <dt className="text-slate-600">{t(label)}:</dt>
            <dd className={`font-semibold tabular-nums ${value > 0 ? tone : 'text-slate-900'}`}>{value}</dd>
          </div>
        ))}
        <div className="flex gap-1" data-testid="run-refunded">
          <dt className="text-slate-600">{t('progress.refunded')}:</dt>
          <dd className="font-semibold tabular-nums text-slate-900">{t('progress.credits', { count: run.refundedCredits })}</dd>
        </div>
      </dl>
    </div>
  );
}
