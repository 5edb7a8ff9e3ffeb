import assert from 'node:assert/strict';
import { isWebLink } from '../../../src/core/webLink';

describe('links from outside', () => {
  it('opens web addresses only, whatever scheme a record or a paper carries', () => {
    const opened = ['https://doi.org/10.1/x', 'http://arxiv.org/abs/1706.03762', 'HTTPS://Example.org/a?b=c#d'];
    const refused = [
      'vscode://attest/x',
      'file:///etc/passwd',
      'command:workbench.action.terminal.new',
      'javascript:alert(1)',
      'https://',
      'https://a b',
      '//example.org',
      'doi.org/10.1/x',
    ];
    assert.deepEqual(
      opened.filter((url) => !isWebLink(url)),
      [],
    );
    assert.deepEqual(
      refused.filter((url) => isWebLink(url)),
      [],
    );
  });
});
