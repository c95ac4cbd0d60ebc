import type { MetaFunction } from '@remix-run/node';
import { useTranslation } from 'react-i18next';

export const meta: MetaFunction = () => [{ title: 'Postforge' }];

export default function Landing() {
  const { t } = useTranslation();
  return (
    <main>
      <h1>{t('appName')}</h1>
    </main>
  );
}
