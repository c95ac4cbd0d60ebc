import { json } from '@remix-run/node';
import { getT } from '~/i18n.server';
import type { LegalAnswer, LegalDocument, LegalSection } from '~/utils/legal-document';
import { contactEmail } from '~/runtime/contact.server';

/** The loader answer of a legal page: its texts in the request's language, with the contact address. */
export async function legalDocument(request: Request, page: 'terms' | 'privacy' | 'contact') {
  const t = await getT(request, 'legal');
  const email = contactEmail();
  const doc: LegalDocument = {
    title: t(`${page}.title`),
    intro: t(`${page}.intro`),
    updated: t('updated'),
    backHome: t('backHome'),
    sections: t(`${page}.sections`, { returnObjects: true, email }) as unknown as LegalSection[],
    contactEmail: email,
  };
  return json<LegalAnswer>({ doc, emailLabel: page === 'contact' ? t('contact.emailLabel') : '' });
}
