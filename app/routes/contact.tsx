import type { LoaderFunctionArgs } from '@remix-run/node';
import { legalDocument } from '~/http/legal.server';

export { legalMeta as meta, LegalRoute as default } from '~/components/legal-page';

export const loader = ({ request }: LoaderFunctionArgs) => legalDocument(request, 'contact');
