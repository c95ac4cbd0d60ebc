import { useTranslation } from 'react-i18next';
import { dateTimeFormat } from '~/utils/intl-format';

// The balance from the account's first ledger day (at most 90 days back) to today, drawn in the
// server render (no script needed): a step line of each day's closing balance with a light area
// under it. The plot stretches to any width; its labels are HTML text, so they keep their size
// (12 px) on a phone instead of shrinking with a scaled SVG.

export type BalancePoint = { day: string; balance: number };

const H = 100;

export function BalanceChart({ points }: { points: BalancePoint[] }) {
  const { t, i18n } = useTranslation('ledger');
  if (points.length === 0) return null;
  const number = (n: number) => n.toLocaleString(i18n.language);
  // Days are calendar days of the reader's time zone already: format them as such.
  const date = (day: string) =>
    dateTimeFormat(i18n.language, { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));
  const balances = points.map((p) => p.balance);
  const max = Math.max(...balances);
  const min = Math.min(...balances);
  const top = Math.max(max, 1);
  const n = points.length;
  const y = (v: number) => H - (v / top) * H;
  // A step line: each day holds its closing balance across its width (x in days, y in 0..100).
  const path = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${i},${y(p.balance).toFixed(2)} H${i + 1}`).join(' ');
  const area = `${path} V${H} H0 Z`;
  const first = points[0]!;
  const last = points.at(-1)!;
  const summary = t('chart.summary', {
    from: date(first.day),
    to: date(last.day),
    now: number(last.balance),
    max: number(max),
    min: number(min),
  });
  const ticks = [top, Math.round(top / 2), 0].filter((v, i, a) => a.indexOf(v) === i);
  const labels = [...new Set([0, Math.floor((n - 1) / 2), n - 1])].map((i) => date(points[i]!.day));

  return (
    <section aria-labelledby="balance-chart-title" className="mt-8 rounded-2xl bg-white p-4 shadow-sm ring-1 ring-slate-200 sm:p-6">
      <h2 id="balance-chart-title" className="text-lg font-semibold text-slate-900">
        {t('chart.title')}
      </h2>
      <p className="mt-1 text-sm text-slate-700">{summary}</p>
      <div className="mt-4 flex gap-2">
        <div
          aria-hidden="true"
          className="flex h-40 flex-col justify-between text-right text-xs leading-none tabular-nums text-slate-600"
          data-testid="balance-chart-y"
        >
          {ticks.map((v) => (
            <span key={v}>{number(v)}</span>
          ))}
        </div>
        <div className="min-w-0 flex-1">
          <svg
            viewBox={`0 0 ${n} ${H}`}
            preserveAspectRatio="none"
            role="img"
            aria-labelledby="balance-chart-svg-title balance-chart-svg-desc"
            className="block h-40 w-full overflow-visible"
            data-testid="balance-chart"
          >
            <title id="balance-chart-svg-title">{t('chart.title')}</title>
            <desc id="balance-chart-svg-desc">{summary}</desc>
            {ticks.map((v) => (
              <line key={v} x1={0} x2={n} y1={y(v)} y2={y(v)} stroke="#e2e8f0" strokeWidth="1" vectorEffect="non-scaling-stroke" />
            ))}
            <path d={area} fill="#e0e7ff" />
            <path d={path} fill="none" stroke="#4f46e5" strokeWidth="2" strokeLinejoin="round" vectorEffect="non-scaling-stroke" />
          </svg>
          <div
            aria-hidden="true"
            className={`mt-2 flex text-xs text-slate-600 ${labels.length > 1 ? 'justify-between' : 'justify-center'}`}
            data-testid="balance-chart-x"
          >
            {labels.map((label) => (
              <span key={label}>{label}</span>
            ))}
          </div>
        </div>
      </div>
    </section>
  );
}
