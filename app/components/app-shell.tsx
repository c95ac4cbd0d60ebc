import type { ReactNode } from 'react';
import { Header, type HeaderUser } from '~/components/header';
import { LegalLinks } from '~/components/legal-links';

/** The frame of every workspace screen: the workspace header above the page's main content, legal links below. */
export function AppShell({ user, credits, children }: { user: HeaderUser; credits: number; children: ReactNode }) {
  return (
    <div className="min-h-screen bg-slate-50">
      <Header user={user} credits={credits} />
      <main id="main" className="mx-auto max-w-7xl px-4 py-8 sm:px-6 lg:px-8">
        {children}
      </main>
      <footer className="border-t border-slate-200 bg-white">
        <div className="mx-auto max-w-7xl px-4 py-6 sm:px-6 lg:px-8">
          <LegalLinks />
        </div>
      </footer>
    </div>
  );
}
