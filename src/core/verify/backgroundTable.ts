/**
 * The general-English term table (250 KB), in a module of its own that background.ts requires on first
 * use: the package bundles it apart (dist/lib/background-terms.js), so activation does not parse it.
 */
import table from './backgroundTerms.json';

export default table;
