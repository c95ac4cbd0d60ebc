import type { ReactNode } from 'react';
import { Icon } from '~/components/icons';
import { DialogFrame, dialogCloseClass } from '~/components/ui/dialog-frame';

/**
 * A modal dialog held in component state (for dialogs opened by the page's script; their no-JavaScript
 * form is a page).
 */
export function Modal({
  title,
  description,
  onClose,
  closeLabel,
  children,
  size = 'lg',
  badge,
}: {
  title: string;
  description?: string;
  onClose: () => void;
  closeLabel: string;
  children: ReactNode;
  size?: 'sm' | 'lg';
  badge?: ReactNode;
}) {
  return (
    <DialogFrame
      title={title}
      description={description}
      badge={badge}
      size={size}
      onDismiss={onClose}
      closeControl={
        <button type="button" onClick={() => onClose()} className={dialogCloseClass}>
          <Icon name="x" />
          <span className="sr-only">{closeLabel}</span>
        </button>
      }
    >
      {children}
    </DialogFrame>
  );
}
