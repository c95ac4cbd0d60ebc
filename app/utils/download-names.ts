// File names of downloads, shared by the server's download routes and the browser.

/** Reduced to word characters (any script), whitespace, dots and hyphens; whitespace runs → '_'; ≤ 100. */
export function safeFileName(name: string, max = 100): string {
  return name
    .replace(/[^\p{L}\p{N}_\s.-]/gu, '')
    .trim()
    .replace(/\s+/g, '_')
    .slice(0, max);
}

/** Text result: the first 30 characters of the prompt, made safe, with .txt. */
export function textFileName(prompt: string): string {
  return `${safeFileName(prompt.slice(0, 30)) || 'result'}.txt`;
}

const extensions: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' };
export const imageExtension = (contentType: string) => extensions[contentType] ?? 'png';

/** Image result: a prompt prefix (30 characters for one download, 20 in bulk with a counter). */
export function imageFileName(prompt: string, contentType: string, counter?: number): string {
  const prefix = safeFileName(prompt.slice(0, counter === undefined ? 30 : 20)) || 'image';
  return `${prefix}${counter === undefined ? '' : `_${counter}`}.${imageExtension(contentType)}`;
}

export const TEXT_RESULTS_FILE = 'text_results.txt';
export const ALL_RESULTS_ZIP = 'postforge_results.zip';
