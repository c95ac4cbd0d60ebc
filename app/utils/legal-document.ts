// The shape of a legal page's text (/terms, /privacy, /contact): built by the loader glue in
// app/http/legal.server.ts, rendered by components/legal-page.tsx. Kept here, on the ground floor,
// so the component and the glue share it without importing each other.
export type LegalSection = { heading: string; body: string[] };
export type LegalDocument = {
  title: string;
  intro: string;
  updated: string;
  backHome: string;
  sections: LegalSection[];
  contactEmail: string;
};

/** A legal page loader's answer. */
export type LegalAnswer = { doc: LegalDocument; emailLabel: string };
