import { buttonClass, type ButtonSize, type ButtonVariant } from '~/components/ui/button';
import { AppLink, type AppLinkProps } from '~/components/ui/app-link';

// A navigation link that looks like a button (buttons that submit are ui/button). `inverse` is for
// links on the brand-coloured call-to-action band.
type Variant = Exclude<ButtonVariant, 'destructive' | 'link'> | 'inverse';
const inverse =
  'inline-flex items-center justify-center gap-2 rounded-lg font-semibold transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 bg-white text-indigo-700 shadow-sm hover:bg-indigo-50 focus-visible:outline-white';
const inverseSizes: Record<ButtonSize, string> = {
  sm: 'px-3 py-1.5 text-sm',
  md: 'px-4 py-2 text-sm',
  lg: 'px-6 py-3 text-base',
  icon: 'h-9 w-9',
};

export function linkButtonClass(variant: Variant = 'primary', size: ButtonSize = 'md') {
  return variant === 'inverse' ? `${inverse} ${inverseSizes[size]}` : buttonClass(variant, size);
}

export function ButtonLink({ variant, size, className = '', ...props }: AppLinkProps & { variant?: Variant; size?: ButtonSize }) {
  return <AppLink {...props} className={`${linkButtonClass(variant, size)} ${className}`} />;
}
