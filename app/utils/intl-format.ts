// Intl formatters built once per locale and options. Building one resolves locale data (~0.3 ms
// here); formatting with a built one takes a few µs. `date.toLocaleString(language, options)` builds
// one on every call, which made a page of 30 results spend ~10 ms on its dates. Shared by server
// and browser.

// Locales and options come from our own code and the reader's language and validated time zone,
// so the set is small; the bound only keeps a long-running process safe from surprises.
const MAX_FORMATTERS = 500;
const dateFormats = new Map<string, Intl.DateTimeFormat>();
const numberFormats = new Map<string, Intl.NumberFormat>();

function cached<F>(cache: Map<string, F>, key: string, build: () => F): F {
  let formatter = cache.get(key);
  if (!formatter) {
    if (cache.size >= MAX_FORMATTERS) cache.clear();
    formatter = build();
    cache.set(key, formatter);
  }
  return formatter;
}

/** `new Intl.DateTimeFormat(locale, options)`, built once. */
export function dateTimeFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  return cached(dateFormats, `${locale}|${JSON.stringify(options)}`, () => new Intl.DateTimeFormat(locale, options));
}

/**
 * dateTimeFormat for a hot path: found by a key the caller names (`name`, the locale and the zone),
 * instead of its serialised options; `options` (without the zone) are the same for a name.
 */
export function namedDateTimeFormat(
  name: string,
  locale: string,
  timeZone: string,
  options: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  return cached(dateFormats, `#${name}|${locale}|${timeZone}`, () => new Intl.DateTimeFormat(locale, { ...options, timeZone }));
}

/** `new Intl.NumberFormat(locale, options)`, built once. */
export function numberFormat(locale: string, options: Intl.NumberFormatOptions = {}): Intl.NumberFormat {
  return cached(numberFormats, `${locale}|${JSON.stringify(options)}`, () => new Intl.NumberFormat(locale, options));
}

/** A price in US dollars as every page shows it: whole dollars without cents ("$15", "US$15" in zh-HK). */
export function formatUsd(locale: string, usd: number): string {
  const digits = Number.isInteger(usd) ? 0 : 2;
  return numberFormat(locale, { style: 'currency', currency: 'USD', minimumFractionDigits: digits, maximumFractionDigits: digits }).format(
    usd,
  );
}
