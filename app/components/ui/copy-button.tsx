import { useState, type RefObject } from 'react';
import { useHydrated } from '~/components/generation/use-hydrated';
import { Button } from './button';

/**
 * Copies a one-time secret to the clipboard and says so. Rendered only once the page's script runs:
 * without it the secret's read-only field (selected on focus) is the way to copy it.
 */
export function CopyButton({
  text,
  field,
  label,
  copiedLabel,
}: {
  text: string;
  /** The field showing the text, selected on click so a failed clipboard write still leaves it ready to copy. */
  field?: RefObject<HTMLInputElement>;
  label: string;
  copiedLabel: string;
}) {
  const hydrated = useHydrated();
  const [copied, setCopied] = useState(false);
  if (!hydrated) return null;
  return (
    <Button
      variant="secondary"
      size="sm"
      onClick={() => {
        field?.current?.select();
        void navigator.clipboard?.writeText(text).then(() => setCopied(true));
      }}
    >
      {copied ? copiedLabel : label}
    </Button>
  );
}
