// The ground floor of sources/: the config, the health of sources and the shapes of their answers all
// name a source, and none of them need import another for it.
/** The open bibliographic sources Attest asks. */
export type SourceId = 'openalex' | 'crossref' | 'semanticscholar' | 'arxiv' | 'europepmc' | 'core' | 'openlibrary' | 'dblp';
