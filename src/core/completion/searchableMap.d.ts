// MiniSearch's radix tree is published as `minisearch/SearchableMap` through its package exports, which
// this project's module resolution (node10, for CommonJS) does not read: its types are named here.
declare module 'minisearch/SearchableMap' {
  export { default } from 'minisearch/dist/cjs/SearchableMap.cjs';
}
