/** The local paper library, its store and the paper files imported into it. An adapter that must start its encoder first imports this lazily: it loads the whole index. */
export { type Encoder, ENCODER_NOT_DOWNLOADED_NOTE, ENCODER_SETTING, IMPORT_BATCH, NO_ENCODER_NOTE, PaperLibrary } from '../index/library';
export { StoreError } from '../index/store/store';
export { formatOf, importFileInBatches, type ImportResult, type PaperFormat, papersFromBibliography } from '../papers/import';
