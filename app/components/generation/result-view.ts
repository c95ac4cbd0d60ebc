import type { Result } from '~/services/results.server';
import type { PublicationView } from '~/components/wordpress/publication-status';

// The shape of a result as the results list, its items and the editor show it: a module of its
// own, so the components that show a result need not import one another for a type.

export type ResultView = Pick<
  Result,
  | 'id'
  | 'runId'
  | 'type'
  | 'prompt'
  | 'title'
  | 'content'
  | 'status'
  | 'errorCode'
  | 'errorParams'
  | 'metadata'
  | 'characterCount'
  | 'wordCount'
  | 'createdAt'
  | 'model'
> & {
  /** When the post last changed (a fix's confirm step sends it back: a post changed since is not fixed blind). */
  updatedAt?: Result['updatedAt'];
  /** A completed text post's latest one-click fix. */
  fix?: Result['fix'];
  /** A completed text result's quality report, and when it was approved (Results only). */
  quality?: Result['quality'];
  approvedAt?: Result['approvedAt'];
  /** A gated publication of it waits for its approval. */
  held?: boolean;
  /** The result's latest WordPress publication, if any. */
  publication?: PublicationView | null;
  /** A text result's SEO fields, edited with it. */
  seo?: Result['seo'];
};

/** What the results list knows about the user's WordPress publishing. */
export type WordPressView = { canPublish: boolean; hasSites: boolean; timeZone: string };
