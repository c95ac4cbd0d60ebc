-- A failed delivery says why as a code (app/utils/webhook-events.ts) with its parameters (the
-- receiver's HTTP status), which the settings page translates into the reader's language.
-- `last_error` keeps an English text for operators and is no longer shown.
ALTER TABLE webhook_deliveries ADD COLUMN last_error_code text;
ALTER TABLE webhook_deliveries ADD COLUMN last_error_params jsonb;

-- Rows stored before carry only that text. Our own fixed texts get their code here; any other text
-- stays without a code and reads as a plain "Delivery failed" (it may name a host or an address).
UPDATE webhook_deliveries SET
  last_error_code = CASE
    WHEN last_error = 'endpoint turned off' THEN 'endpoint_disabled'
    WHEN last_error ~ '^HTTP [0-9]{3}$' THEN 'http_status'
    WHEN last_error = 'Not a valid URL' OR last_error = 'URLs with credentials are not allowed' THEN 'bad_url'
    WHEN last_error = 'Only http and https URLs are allowed' THEN 'bad_scheme'
    WHEN last_error ~ 'private or reserved address' THEN 'blocked_address'
    WHEN last_error ~ '^The host name could not be resolved' THEN 'dns'
    WHEN last_error = 'The connection was refused' THEN 'refused'
    WHEN last_error = 'The site did not answer in time' THEN 'timeout'
    WHEN last_error ~ '^TLS error: ' THEN 'tls'
    WHEN last_error = 'The response is too large' THEN 'too_large'
    WHEN last_error = 'Too many redirects' THEN 'too_many_redirects'
  END,
  last_error_params = CASE WHEN last_error ~ '^HTTP [0-9]{3}$' THEN jsonb_build_object('status', substr(last_error, 6)::int) END
WHERE last_error IS NOT NULL AND last_error_code IS NULL;
