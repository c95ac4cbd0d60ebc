import { parse } from 'cookie';

// Every cookie the server reads by name goes through the `cookie` library: a malformed value
// (`language=%`) decodes to itself instead of throwing, so a bad cookie is ignored, never a 500.

/** The cookies of a Cookie header (empty when none). */
export function readCookies(header: string | null | undefined): Record<string, string | undefined> {
  return header ? parse(header) : {};
}

/** One cookie's value, or undefined. */
export function readCookie(header: string | null | undefined, name: string): string | undefined {
  return readCookies(header)[name];
}
