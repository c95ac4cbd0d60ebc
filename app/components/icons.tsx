// Inline outline icons (no icon library: keeps the landing page's JavaScript small). Decorative only.
const paths = {
  layers: ['M12 3 2 8l10 5 10-5-10-5Z', 'm2 12 10 5 10-5', 'm2 16 10 5 10-5'],
  globe: [
    'M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18Z',
    'M12 3c-2.4 2.6-3.6 5.6-3.6 9s1.2 6.4 3.6 9c2.4-2.6 3.6-5.6 3.6-9S14.4 5.6 12 3Z',
    'M3.5 9h17M3.5 15h17',
  ],
  sliders: ['M4 6h9M17 6h3M4 12h3M11 12h9M4 18h11M19 18h1', 'M15 4v4M9 10v4M17 16v4'],
  image: ['M4 5h16v14H4z', 'm4 16 5-5 4 4 3-3 4 4', 'M15.5 9.5a1.5 1.5 0 1 0 0-.01'],
  send: ['M4 12 20 4l-6 16-3-7-7-1Z', 'm11 13 9-9'],
  cpu: ['M7 7h10v10H7z', 'M10 10h4v4h-4z', 'M9 3v4M15 3v4M9 17v4M15 17v4M3 9h4M3 15h4M17 9h4M17 15h4'],
  coins: [
    'M12 8c4.4 0 8-1.3 8-3s-3.6-3-8-3-8 1.3-8 3 3.6 3 8 3Z',
    'M4 5v6c0 1.7 3.6 3 8 3s8-1.3 8-3V5',
    'M4 11v6c0 1.7 3.6 3 8 3s8-1.3 8-3v-6',
  ],
  sparkles: ['M12 3l1.8 4.7L18.5 9.5l-4.7 1.8L12 16l-1.8-4.7L5.5 9.5l4.7-1.8Z', 'M19 15l.8 2.2L22 18l-2.2.8L19 21l-.8-2.2L16 18l2.2-.8Z'],
  check: ['m5 12.5 4.5 4.5L19 7.5'],
  x: ['M6 6l12 12M18 6 6 18'],
  menu: ['M4 7h16M4 12h16M4 17h16'],
  chevronDown: ['m6 9 6 6 6-6'],
  arrowRight: ['M5 12h14', 'm13 6 6 6-6 6'],
  file: ['M14 3H6v18h12V7l-4-4Z', 'M14 3v4h4', 'M9 13h6M9 17h6'],
  pen: ['M4 20h4L19 9l-4-4L4 16v4Z', 'm13.5 6.5 4 4'],
  logout: ['M15 4h4v16h-4', 'M10 17l5-5-5-5', 'M15 12H3'],
  user: ['M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8Z', 'M4 21c0-4 3.6-6 8-6s8 2 8 6'],
  info: ['M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18Z', 'M12 11v5M12 8h.01'],
  alert: ['M12 3 2 20h20L12 3Z', 'M12 10v4M12 17h.01'],
  grid: ['M4 4h7v7H4zM13 4h7v7h-7zM4 13h7v7H4zM13 13h7v7h-7z'],
  list: ['M9 6h11M9 12h11M9 18h11', 'M4 6h.01M4 12h.01M4 18h.01'],
} as const;

export type IconName = keyof typeof paths;

/** An outline icon drawn from path data (for icons kept out of the shared set, see header.tsx). */
export function OutlineIcon({ d, className = 'size-5' }: { d: readonly string[]; className?: string }) {
  return (
    <svg
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.75}
      strokeLinecap="round"
      strokeLinejoin="round"
      className={className}
      aria-hidden="true"
      focusable="false"
    >
      {d.map((path) => (
        <path key={path} d={path} />
      ))}
    </svg>
  );
}

export function Icon({ name, className = 'size-5' }: { name: IconName; className?: string }) {
  return <OutlineIcon d={paths[name]} className={className} />;
}

/** The product mark: a stacked-pages glyph in the brand colour. */
export function Logo({ className = 'size-8' }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" className={className} aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="8" className="fill-indigo-600" />
      <path d="M10 9h9l4 4v10H10z" fill="none" stroke="white" strokeWidth="2" strokeLinejoin="round" />
      <path d="M13 15h7M13 19h5" stroke="white" strokeWidth="2" strokeLinecap="round" />
    </svg>
  );
}
