import { useTranslation } from 'react-i18next';

// The balance over the last 90 days as an SVG drawn in the server render (no script needed): a
// step line of each day's closing balance with a light area under it.

export type BalancePoint = { day: string; balance: number };

const W = 720;
const H = 200;
const PAD = { top: 12, right: 12, bottom: 28, left: 44 };

export function BalanceChart({ points }: { points: BalancePoint[] }) {
  const { t, i18n } = useTranslation('ledger');
  if (points.length === 0) return null;
  const number = (n: number) => n.toLocaleString(i18n.language);
  const date = (day: string) => new Date(`${day}T00:00:00Z`).toLocaleDateString(i18n.language, { month: 'short', day: 'numeric', timeZone: 'UTC' });
  const balances = points.map((p) => p.balance);
  const max = Math.max(...balances);
  const min = Math.min(...balances);
  const top = Math.max(max, 1);
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const step = innerW / points.length;
  const y = (v: number) => PAD.top + innerH - (v / top) * innerH;
  // A step line: each day holds its closing balance across its width.
  const path = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${(PAD.left + i * step).toFixed(1)},${y(p.balance).toFixed(1)} H${(PAD.left + (i + 1) * step).toFixed(1)}`).join(' ');
  const area = `${path} V${PAD.top + innerH} H${PAD.left} Z`;
  const first = points[0]!;
  const last = points.at(-1)!;
  const summary = t('chart.summary', { from: date(first.day), to: date(last.day), now: number(last.balance), max: number(max), min: number(min) });
  const ticks = [0, Math.round(top / 2), top].filter((v, i, a) => a.indexOf(v) === i);
  const labels = [0, Math.floor(points.length / 2), points.length - 1];

  return (
    <section aria-labelledby="balance-chart-title" className="mt-8 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-slate-200">
      <h2 id="balance-chart-title" className="text-lg font-semibold text-slate-900">
        {t('chart.title')}
      </h2>
      <p className="mt-1 text-sm text-slate-700">{summary}</p>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby="balance-chart-svg-title balance-chart-svg-desc" className="mt-4 h-auto w-full" data-testid="balance-chart">
        <title id="balance-chart-svg-title">{t('chart.title')}</title>
        <desc id="balance-chart-svg-desc">{summary}</desc>
        {ticks.map((v) => (
          <g key={v}>
            <line x1={PAD.left} x2={W - PAD.right} y1={y(v)} y2={y(v)} stroke="#e2e8f0" strokeWidth="1" />
            <text x={PAD.left - 6} y={y(v) + 4} textAnchor="end" fontSize="11" fill="#475569">
              {number(v)}
            </text>
          </g>
        ))}
        <path d={area} fill="#e0e7ff" />
        <path d={path} fill="none" stroke="#4f46e5" strokeWidth="2" strokeLinejoin="round" />
        {labels.map((i) => (
          <text key={i} x={PAD.left + (i + 0.5) * step} y={H - 8} textAnchor={i === 0 ? 'start' : i === points.length - 1 ? 'end' : 'middle'} fontSize="11" fill="#475569">
            {date(points[i]!.day)}
          </text>
        ))}
      </svg>
    </section>
  );
}
