// A field people never see and bots fill in. A submission with it filled is dropped quietly: the
// bot gets the ordinary answer and nothing happens.
export const HONEYPOT_FIELD = 'website';

/** The hidden field to put inside every public form. */
export function HoneypotInputs() {
  return (
    <div aria-hidden="true" className="absolute -left-[9999px] h-px w-px overflow-hidden" data-honeypot>
      <label>
        Leave this field empty
        <input type="text" name={HONEYPOT_FIELD} tabIndex={-1} autoComplete="off" defaultValue="" />
      </label>
    </div>
  );
}

/** True when a form (or a JSON body) has the honeypot filled in. */
export function isHoneypotFilled(data: FormData | Record<string, unknown> | null | undefined): boolean {
  if (!data) return false;
  const value = data instanceof FormData ? data.get(HONEYPOT_FIELD) : data[HONEYPOT_FIELD];
  return value !== null && value !== undefined && value !== '';
}
