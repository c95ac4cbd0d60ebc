import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { useLoaderData } from '@remix-run/react';
import { LegalPage } from '~/components/legal-page';
import { legalDocument } from '~/utils/legal.server';

export const loader = ({ request }: LoaderFunctionArgs) => legalDocument(request, 'contact');

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data ? `${data.doc.title} · Postforge` : 'Postforge' }];

export default function Page() {
  const { doc, emailLabel } = useLoaderData<typeof loader>();
  return (
    <LegalPage doc={doc}>
      {emailLabel ? (
        <p className="mt-6 rounded-lg bg-indigo-50 p-4 text-base text-slate-900 ring-1 ring-indigo-100">
          <span className="font-semibold">{emailLabel}: </span>
          <a href={`mailto:${doc.contactEmail}`} className="text-indigo-700 underline">
            {doc.contactEmail}
          </a>
        </p>
      ) : null}
    </LegalPage>
  );
}
