// What a publication is, as the blogger reads it: beside our own life cycle (waiting, done, failed,
// canceled), the status the post was given on the site (a draft or a post pending review is not
// published) and whether it only updated a post that was already there (not another post).

export const POST_STATUSES = ['publish', 'draft', 'pending'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

export type ShownStatus = 'queued' | 'published' | 'draft' | 'pending' | 'updated' | 'failed' | 'canceled';

export function shownStatus(p: {
  status: 'queued' | 'published' | 'failed' | 'canceled';
  postStatus?: PostStatus;
  updatesPost?: boolean;
}): ShownStatus {
  if (p.status !== 'published') return p.status;
  if (p.postStatus === 'draft' || p.postStatus === 'pending') return p.postStatus;
  return p.updatesPost ? 'updated' : 'published';
}
