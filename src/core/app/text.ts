/** Text as adapters hand it to core and show it back: bounded file reads and decoding, the workspace interface, Markdown escaping and links, the package's own files, and a check of JSON lists read from outside. */
export { attestPackages } from '../attestPackage';
export { isStringList } from '../json';
export { doiUrl, linkTarget, markdownCode, markdownLink, markdownText } from '../markdownText';
export { UnreadableFileError } from '../text/decode';
export { mayNotBeUtf8, notUtf8Note } from '../text/fileNames';
export { FileTooLargeError, LARGEST_TEXT_BYTES, readNamedTextFile, readTextFile, SMALL_FILE_BYTES } from '../text/readFile';
export { isWebLink } from '../webLink';
export type { Workspace } from '../workspace';
