/**
 * Loaded before every unit test (.mocharc.json): the CLI's runs judge support by relevance alone
 * unless a test names a model, whether or not the repository holds the built-in one, so that what
 * they assert does not change when a model is added or retrained. models-shipped.test.ts tests that one.
 */
process.env.ATTEST_NLI_MODEL ??= 'none';
