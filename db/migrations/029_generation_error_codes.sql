-- A failed item says why as a code (app/utils/generation-errors.ts) with its parameters (the
-- provider's HTTP status, the provider's own words), which pages and the API translate into the
-- reader's language. `error` keeps an English text for operators and is no longer shown.
ALTER TABLE generation_results ADD COLUMN error_code text;
ALTER TABLE generation_results ADD COLUMN error_params jsonb;

-- Failures stored before carry only that text. The worker's own fixed sentences, and a provider's
-- status answer ("429: its words"), get their code here. Any other text stays without a code and
-- reads as a plain "Generation failed": it may be a database driver's message naming a host and
-- port, and a user never reads those.
UPDATE generation_results SET error_code = CASE error
    WHEN 'The worker stopped while generating this item.' THEN 'interrupted'
    WHEN 'This item took too long and was stopped; no credits were charged.' THEN 'hold_expired'
    WHEN 'Generation failed. Please try again.' THEN 'internal'
    WHEN 'No API key for the text provider.' THEN 'no_text_key'
    WHEN 'No API key for the image provider.' THEN 'no_image_key'
    WHEN 'The AI provider timed out.' THEN 'provider_timeout'
    WHEN 'Could not reach the AI provider.' THEN 'provider_unreachable'
    WHEN 'The AI provider returned an empty or malformed answer.' THEN 'provider_malformed'
    WHEN 'The image could not be generated.' THEN 'image_failed'
    WHEN 'The image provider returned no image.' THEN 'image_missing'
    WHEN 'The image provider returned something that is not an image.' THEN 'image_not_image'
    WHEN 'The image is empty or too large.' THEN 'image_too_large'
  END
WHERE status = 'failed' AND error_code IS NULL AND error IN (
  'The worker stopped while generating this item.',
  'This item took too long and was stopped; no credits were charged.',
  'Generation failed. Please try again.',
  'No API key for the text provider.',
  'No API key for the image provider.',
  'The AI provider timed out.',
  'Could not reach the AI provider.',
  'The AI provider returned an empty or malformed answer.',
  'The image could not be generated.',
  'The image provider returned no image.',
  'The image provider returned something that is not an image.',
  'The image is empty or too large.'
);

UPDATE generation_results SET error_code = 'image_download_failed',
  error_params = jsonb_build_object('status', substr(error, 1, 3)::int)
WHERE status = 'failed' AND error_code IS NULL AND error ~ '^[45][0-9]{2}: the image could not be downloaded$';

-- The provider's status and words, coded as providers.server.ts's statusFailure does.
UPDATE generation_results SET
  error_code = CASE
    WHEN substr(error, 1, 3) IN ('401', '403') THEN 'provider_auth'
    WHEN substr(error, 1, 3) = '429' THEN 'provider_rate_limited'
    WHEN substr(error, 1, 1) = '5' THEN 'provider_unavailable'
    ELSE 'provider_refused'
  END,
  error_params = jsonb_build_object('status', substr(error, 1, 3)::int)
    || CASE WHEN substr(error, 6) IN ('', 'Provider error') THEN '{}'::jsonb ELSE jsonb_build_object('detail', substr(error, 6)) END
WHERE status = 'failed' AND error_code IS NULL AND error ~ '^[45][0-9]{2}: ';
