import { Form, useLocation } from '@remix-run/react';
import { useTranslation } from 'react-i18next';
import { Icon, Logo, OutlineIcon } from '~/components/icons';
import { LanguageSwitcher } from '~/components/language-switcher';
import { CreditBalance, PlanBadge, type SubscriptionStatus } from '~/components/plan-badge';
import { onDemand, serverRendered } from '~/components/on-demand';
import { useSettingsLinks } from '~/components/settings-param';
import { DetailsMenu, menuItemClass } from '~/components/ui/menu';
import { useRootData } from '~/root';
import { AppLink } from '~/components/ui/app-link';

export type HeaderUser = { name: string; email: string; subscriptionStatus: SubscriptionStatus };

const navLinkClass = ({ isActive }: { isActive: boolean }) =>
  `rounded-lg px-3 py-2 text-sm font-medium transition-colors focus-visible:outline-2 focus-visible:outline-indigo-600 ${
    isActive ? 'bg-indigo-50 text-indigo-700' : 'text-slate-700 hover:bg-slate-100 hover:text-slate-900'
  }`;

function initials(name: string) {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  const letters = parts.length > 1 ? [parts[0]![0], parts[parts.length - 1]![0]] : [...(parts[0] ?? '?')].slice(0, 2);
  return letters.join('').toUpperCase();
}

// The bar and the compact menu each hold these links (CSS shows one): each landmark has its own name.
function NavLinks({ className, inMenu = false }: { className: string; inMenu?: boolean }) {
  const { t } = useTranslation();
  const { pathname, search } = useLocation();
  // "Text" is the workspace in text mode (not image mode); Subscription is its page and those under it.
  const onApp = pathname.replace(/\/$/, '') === '/app';
  const text = onApp && new URLSearchParams(search).get('type') !== 'image';
  const subscription = pathname === '/subscription' || pathname.startsWith('/subscription/');
  return (
    <nav aria-label={t(inMenu ? 'header.navMenu' : 'header.nav')} className={className}>
      <AppLink to="/app" className={navLinkClass({ isActive: text })} aria-current={text ? 'page' : onApp ? 'false' : undefined}>
        {t('header.text')}
      </AppLink>
      <AppLink to="/subscription" className={navLinkClass({ isActive: subscription })} aria-current={subscription ? 'page' : undefined}>
        {t('header.subscription')}
      </AppLink>
    </nav>
  );
}

function LogoutButton() {
  const { t } = useTranslation();
  return (
    <Form method="post" action="/logout">
      <button type="submit" className={menuItemClass}>
        <Icon name="logout" className="size-4" />
        {t('header.account.logout')}
      </button>
    </Form>
  );
}

function AccountItems({ user, withSubscription = true }: { user: HeaderUser; withSubscription?: boolean }) {
  const { t } = useTranslation();
  // Admins find the ledger and the finance flags here (the page is a 404 for everyone else).
  const isAdmin = useRootData()?.user?.role === 'admin';
  const { openHref } = useSettingsLinks();
  return (
    <>
      <div className="px-3 py-2">
        <p className="truncate text-sm font-medium text-slate-900">{user.name}</p>
        <p className="truncate text-xs text-slate-600">{user.email}</p>
      </div>
      <div className="my-1 h-px bg-slate-200" role="presentation" />
      {/* The account's own settings (provider keys, defaults, API tokens, webhooks) live in the settings dialog. */}
      <AppLink to={openHref} preventScrollReset className={menuItemClass}>
        <Icon name="user" className="size-4" />
        {t('header.account.myAccount')}
      </AppLink>
      {withSubscription ? (
        <AppLink to="/subscription" className={menuItemClass}>
          <Icon name="coins" className="size-4" />
          {t('header.account.subscription')}
        </AppLink>
      ) : null}
      {isAdmin ? (
        <AppLink to="/admin/ledger" className={menuItemClass}>
          <Icon name="coins" className="size-4" />
          {t('header.account.adminLedger')}
        </AppLink>
      ) : null}
      <LogoutButton />
    </>
  );
}

// The gear lives here rather than in icons.tsx: its long path would otherwise ride in every page's bundle.
const GEAR =
  'M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6Z M19.4 15a1.7 1.7 0 0 0 .3 1.8l.1.1a2 2 0 1 1-2.8 2.8l-.1-.1a1.7 1.7 0 0 0-1.8-.3 1.7 1.7 0 0 0-1 1.5V21a2 2 0 1 1-4 0v-.1a1.7 1.7 0 0 0-1.1-1.5 1.7 1.7 0 0 0-1.8.3l-.1.1a2 2 0 1 1-2.8-2.8l.1-.1a1.7 1.7 0 0 0 .3-1.8 1.7 1.7 0 0 0-1.5-1H3a2 2 0 1 1 0-4h.1a1.7 1.7 0 0 0 1.5-1.1 1.7 1.7 0 0 0-.3-1.8l-.1-.1a2 2 0 1 1 2.8-2.8l.1.1a1.7 1.7 0 0 0 1.8.3H9a1.7 1.7 0 0 0 1-1.5V3a2 2 0 1 1 4 0v.1a1.7 1.7 0 0 0 1 1.5 1.7 1.7 0 0 0 1.8-.3l.1-.1a2 2 0 1 1 2.8 2.8l-.1.1a1.7 1.7 0 0 0-.3 1.8V9a1.7 1.7 0 0 0 1.5 1H21a2 2 0 1 1 0 4h-.1a1.7 1.7 0 0 0-1.5 1Z';

function SettingsLink({ withLabel = false }: { withLabel?: boolean }) {
  const { t } = useTranslation();
  const { openHref } = useSettingsLinks();
  return (
    <AppLink
      to={openHref}
      preventScrollReset
      onMouseEnter={preloadSettings}
      onFocus={preloadSettings}
      onClick={preloadSettings}
      className={
        withLabel
          ? menuItemClass
          : 'rounded-lg p-2 text-slate-600 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600'
      }
    >
      <OutlineIcon d={[GEAR]} className={withLabel ? 'size-4' : 'size-5'} />
      <span className={withLabel ? '' : 'sr-only'}>{t('header.settings')}</span>
    </AppLink>
  );
}

/** The settings dialog, loaded when it first opens (on the way there from its link). */
const settingsDialog = onDemand(() => import('~/components/settings-dialog'));
const SettingsDialog = serverRendered(settingsDialog, (m) => m.SettingsDialog);
const preloadSettings = () => void settingsDialog.load().catch(() => {});

/**
 * Workspace header: navigation, plan badge and credit balance, language switch, account
 * menu and settings. Desktop from 768 px up; below it everything folds into one <details> menu.
 */
export function Header({ user, credits }: { user: HeaderUser | null; credits: number | null }) {
  const { t } = useTranslation();
  const settingsOpen = useSettingsLinks().isOpen;
  return (
    <>
      <header className="sticky top-0 z-40 border-b border-slate-200 bg-white/95 backdrop-blur supports-[backdrop-filter]:bg-white/80">
        <div className="mx-auto flex h-16 max-w-7xl items-center gap-4 px-4 sm:px-6 lg:px-8">
          <AppLink
            to={user ? '/app' : '/'}
            className="flex shrink-0 items-center gap-2 rounded-lg font-bold text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
          >
            <Logo />
            <span className="sr-only text-lg tracking-tight sm:not-sr-only">{t('appName')}</span>
          </AppLink>

          <NavLinks className="ml-4 hidden items-center gap-1 md:flex" />

          {/* Desktop */}
          <div className="ml-auto hidden items-center gap-3 md:flex">
            <div className="flex items-center gap-3" data-testid="plan-status">
              <PlanBadge status={user?.subscriptionStatus ?? null} />
              {user && credits !== null ? <CreditBalance credits={credits} /> : null}
            </div>
            <LanguageSwitcher />
            <SettingsLink />
            {user ? (
              <DetailsMenu
                summary={
                  <>
                    <span
                      aria-hidden="true"
                      className="flex size-9 items-center justify-center rounded-full bg-indigo-600 text-sm font-semibold text-white"
                    >
                      {initials(user.name)}
                    </span>
                    <Icon name="chevronDown" className="ml-1 size-4 text-slate-500" />
                    <span className="sr-only">{t('header.account.menu')}</span>
                  </>
                }
                panelClassName="w-64"
              >
                <AccountItems user={user} />
              </DetailsMenu>
            ) : (
              <AppLink to="/auth" className={navLinkClass({ isActive: false })}>
                {t('header.login')}
              </AppLink>
            )}
          </div>

          {/* Compact, below 768 px: plan and balance stay in the bar, the rest folds into the menu. */}
          <div className="ml-auto flex items-center gap-2 md:hidden" data-testid="plan-status-compact">
            <PlanBadge status={user?.subscriptionStatus ?? null} />
            {user && credits !== null ? <CreditBalance credits={credits} /> : null}
            <DetailsMenu
              summary={
                <span className="rounded-lg p-2 text-slate-700 hover:bg-slate-100">
                  <Icon name="menu" className="size-6" />
                  <span className="sr-only">{t('header.openMenu')}</span>
                </span>
              }
              panelClassName="w-[min(20rem,calc(100vw-2rem))] space-y-1"
            >
              <NavLinks className="flex flex-col gap-1" inMenu />
              <div className="my-1 h-px bg-slate-200" role="presentation" />
              <div className="px-3 py-2">
                <LanguageSwitcher />
              </div>
              <SettingsLink withLabel />
              <div className="my-1 h-px bg-slate-200" role="presentation" />
              {user ? (
                // The navigation above already links to Subscription: not twice in one menu.
                <AccountItems user={user} withSubscription={false} />
              ) : (
                <AppLink to="/auth" className={menuItemClass}>
                  {t('header.login')}
                </AppLink>
              )}
            </DetailsMenu>
          </div>
        </div>
      </header>
      {settingsOpen ? <SettingsDialog /> : null}
    </>
  );
}
