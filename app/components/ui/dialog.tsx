import { useNavigate } from '@remix-run/react';
import type { ReactNode } from 'react';
import { Icon } from '~/components/icons';
import { DialogFrame, dialogCloseClass } from '~/components/ui/dialog-frame';
import { AppLink } from '~/components/ui/app-link';

/**
 * A dialog whose open state lives in the URL (e.g. `?settings=1`): rendered by the server, so it
 * opens without JavaScript (`<dialog open>`); closing is a link. With JavaScript it becomes modal
 * (showModal), and Escape and the backdrop close it too.
 */
export function UrlDialog({
  title,
  closeTo,
  closeLabel,
  children,
}: {
  title: string;
  closeTo: string;
  closeLabel: string;
  children?: ReactNode;
}) {
  const navigate = useNavigate();
  return (
    <DialogFrame
      title={title}
      onDismiss={() => navigate(closeTo, { preventScrollReset: true, replace: true })}
      closeControl={
        <AppLink to={closeTo} replace preventScrollReset className={dialogCloseClass}>
          <Icon name="x" />
          <span className="sr-only">{closeLabel}</span>
        </AppLink>
      }
    >
      {children}
    </DialogFrame>
  );
}
