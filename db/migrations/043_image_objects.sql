-- Images may live in S3-compatible object storage instead of Postgres: such a row keeps the
-- object's key and no bytes. During a move back to Postgres a row briefly has both (the bytes are
-- copied before its object is deleted); it never has neither.
ALTER TABLE generation_images ALTER COLUMN bytes DROP NOT NULL;
ALTER TABLE generation_images ADD COLUMN storage_key text;
ALTER TABLE generation_images ADD CONSTRAINT generation_images_stored CHECK (bytes IS NOT NULL OR storage_key IS NOT NULL) NOT VALID;
ALTER TABLE generation_images VALIDATE CONSTRAINT generation_images_stored;
-- Byte order (COLLATE "C") is the order object storage lists keys in: the verify command walks
-- both side by side.
CREATE UNIQUE INDEX generation_images_storage_key_idx ON generation_images (storage_key COLLATE "C") WHERE storage_key IS NOT NULL;

-- Objects whose rows are gone (a result, a run or an account deleted, whichever way the rows went),
-- deleted from storage by the image-objects-delete job; a row stays until its object is gone.
CREATE TABLE image_object_deletions (
  storage_key text PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION generation_images_object_orphaned() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO image_object_deletions (storage_key) VALUES (OLD.storage_key) ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
-- Only rows with an object: with images in Postgres the trigger costs nothing.
CREATE TRIGGER generation_images_object_orphaned AFTER DELETE ON generation_images
  FOR EACH ROW WHEN (OLD.storage_key IS NOT NULL) EXECUTE FUNCTION generation_images_object_orphaned();
