import type { Author } from './types';

/** "Smith", "Smith and Jones", "Smith et al." — how a reference list names the authors in running text. */
export function formatAuthors(authors: readonly Author[]): string {
  const names = authors.map((a) => a.literal ?? a.family ?? a.given ?? '').filter((n) => n.length > 0);
  if (names.length === 0) return '';
  if (names.length === 1) return names[0];
  if (names.length === 2) return `${names[0]} and ${names[1]}`;
  return `${names[0]} et al.`;
}

/** Every author as "Given Family", up to `max`, for a hover or a listing. */
export function listAuthors(authors: readonly Author[], max = 8): string {
  const names = authors
    .map((a) => a.literal ?? [a.given, a.family].filter((p) => p && p.length > 0).join(' '))
    .filter((n) => n.length > 0);
  return names.length > max ? `${names.slice(0, max).join(', ')}, et al.` : names.join(', ');
}
