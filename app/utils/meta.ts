// Meta functions run without hooks; they read the root loader's catalogue from the route matches.
type Match = { id: string; data: unknown };

export function rootT(matches: readonly Match[], key: string, ns = 'common'): string {
  const data = matches.find((m) => m.id === 'root')?.data as { resources?: Record<string, unknown> } | undefined;
  let node: unknown = data?.resources?.[ns];
  for (const part of key.split('.')) node = (node as Record<string, unknown> | undefined)?.[part];
  return typeof node === 'string' ? node : 'Postforge';
}
