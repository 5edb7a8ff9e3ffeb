/**
 * The `file` field, where reference managers say where an entry's PDF is, in the forms they write:
 *
 *   Zotero / Better BibTeX   file = {/home/me/Zotero/storage/AB12CD/Smith 2020.pdf;/home/me/…/b.pdf}
 *   Zotero (BibTeX export)   file = {Full Text PDF:/home/me/…/Smith 2020.pdf:application/pdf}
 *   JabRef                   file = {:papers/smith2020.pdf:PDF;Supplement:papers/s1.pdf:PDF}
 *                            file = {:C\:\\Users\\me\\smith2020.pdf:PDF}
 *   Mendeley Desktop         file = {:Users/me/Documents/Mendeley Desktop/Smith 2020.pdf:pdf}
 *                            file = {:C$\backslash$:/Users/me/smith2020.pdf:pdf}
 *
 * Items are separated by `;`, the parts of an item (description, path, type) by `:`; `\` escapes
 * either, and Mendeley writes a backslash as `$\backslash$`. Only PDFs are kept, paths as written.
 */

/** The PDFs an entry's `file` field names, in its order. */
export function pdfPathsOf(field: string | undefined): string[] {
  if (!field) return [];
  const text = field.replace(/\$\\backslash\$/g, '\\');
  const paths: string[] = [];
  for (const item of splitUnescaped(text, ';')) {
    const parts = splitUnescaped(item, ':').map(unescape);
    const { path, type } = partsOf(parts);
    if (path === '') continue;
    if (/pdf/i.test(type ?? '') || /\.pdf$/i.test(path)) paths.push(path);
  }
  return paths;
}

/** `description:path:type`, `path:type`, or a bare path (a Windows drive's colon is part of it). */
function partsOf(parts: readonly string[]): { path: string; type?: string } {
  const trimmed = parts.map((p) => p.trim());
  if (trimmed.length >= 3) return { path: trimmed.slice(1, -1).join(':'), type: trimmed[trimmed.length - 1] };
  if (trimmed.length === 2 && looksLikeType(trimmed[1])) return { path: trimmed[0], type: trimmed[1] };
  return { path: trimmed.join(':') };
}

function looksLikeType(part: string): boolean {
  return /^([a-z]+\/[\w.+-]+|pdf|ps|djvu|html?|url|txt|doc|docx|epub)$/i.test(part);
}

function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\' && i + 1 < text.length) {
      current += ch + text[i + 1];
      i++;
    } else if (ch === separator) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

/** `\:` `\;` `\\` as the characters they stand for; a backslash before anything else stays (a Windows path). */
function unescape(part: string): string {
  return part.replace(/\\([:;\\])/g, '$1');
}
