import { deleteOrphanedObjects } from '~/services/images.server';
import { getLogger } from '~/runtime/logger.server';
import { jobSql } from '../../db/client';

/** Deletes the objects of images whose rows are gone; a storage failure throws, for pg-boss to retry. */
export async function handleImageObjectsDelete(): Promise<void> {
  const deleted = await deleteOrphanedObjects(jobSql);
  if (deleted > 0) getLogger().info({ deleted }, 'images: objects deleted');
}
