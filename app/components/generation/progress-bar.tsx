import { useTranslation } from 'react-i18next';

export type RunProgressView = {
  id: string;
  totalPrompts: number;
  completedPrompts: number;
  failedPrompts: number;
  canceledPrompts: number;
  processingPrompts: number;
  status: 'processing' | 'completed' | 'canceled';
};

/** The run's progress: a bar (done out of total) and the counts. */
export function RunProgressBar({ run }: { run: RunProgressView }) {
  const { t } = useTranslation('workspace');
  const done = run.totalPrompts - run.processingPrompts;
  const percent = run.totalPrompts > 0 ? Math.round((done / run.totalPrompts) * 100) : 100;
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
        {t('progress.counts', { done, total: run.totalPrompts, completed: run.completedPrompts, failed: run.failedPrompts })}
      </p>
    </div>
  );
}
