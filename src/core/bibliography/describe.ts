import type { Author } from './types';

/** An author as "Given Family", or the literal name of an organisation. */
export function authorName(author: Author): string {
  return author.literal ?? [author.given, author.family].filter((p) => p && p.length > 0).join(' ');
}

/** Every author as "Given Family", up to `max`, for a hover or a listing. */
export function listAuthors(authors: readonly Author[], max = 8): string {
  const names = authors.map(authorName).filter((n) => n.length > 0);
  return names.length > max ? `${names.slice(0, max).join(', ')}, et al.` : names.join(', ');
}
