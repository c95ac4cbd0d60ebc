import { useTranslation } from 'react-i18next';
import { Badge, type BadgeTone } from '~/components/ui/badge';

export type SubscriptionStatus = 'free' | 'pro' | 'canceled';

const tones: Record<SubscriptionStatus | 'guest', BadgeTone> = {
  guest: 'neutral',
  free: 'neutral',
  pro: 'brand',
  canceled: 'warning',
};

/** Header badge: Guest when signed out; Pro for pro; Pro (Ending) for canceled; Free otherwise. */
export function PlanBadge({ status }: { status: SubscriptionStatus | null }) {
  const { t } = useTranslation();
  const key = status ?? 'guest';
  return <Badge tone={tones[key]}>{t(`plan.${key}`)}</Badge>;
}

/** The credit balance as shown in the header: a coin, the number and the word "credits". */
export function CreditBalance({ credits }: { credits: number }) {
  const { t } = useTranslation();
  return (
    <span className="inline-flex items-center gap-1.5 whitespace-nowrap text-sm text-slate-700" data-testid="credit-balance">
      <span aria-hidden="true" className="size-2 rounded-full bg-amber-400" />
      {t('header.credits', { count: credits })}
    </span>
  );
}
