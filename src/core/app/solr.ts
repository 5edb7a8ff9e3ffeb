/** A Solr collection as the library's shared store: its client, its collection commands and the library that searches it. */
export { SolrClient, SolrError, type SolrTarget } from '../index/solr/client';
export { type AddProgress, addToCollection, collectionInfo, initCollection, SOLR_BATCH } from '../index/solr/collection';
export { SolrLibrary } from '../index/solr/library';
