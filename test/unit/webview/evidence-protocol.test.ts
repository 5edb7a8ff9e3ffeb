import assert from 'node:assert/strict';
import { parseWebviewMessage } from '../../../src/webview/protocol/evidence';

describe("the evidence panel's messages", () => {
  it('takes the Download button, a result action with a valid index, and nothing else', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'downloadEncoder' }), { type: 'downloadEncoder' });
    assert.deepEqual(parseWebviewMessage({ type: 'downloadEncoder', index: 3, extra: '<b>' }), { type: 'downloadEncoder' });
    assert.deepEqual(parseWebviewMessage({ type: 'citeHere', index: 2 }), { type: 'citeHere', index: 2 });
    assert.deepEqual(parseWebviewMessage({ type: 'citeHere', index: 2, list: 7 }), { type: 'citeHere', index: 2, list: 7 });
    for (const junk of [
      null,
      'downloadEncoder',
      { type: 'download' },
      { type: 'citeHere', index: -1 },
      { type: 'openPaper', index: '0' },
      { type: 'attest.downloadEncoder' },
      { type: 'citeHere', index: 0, list: '7' },
      { type: 'citeHere', index: 0, list: 1.5 },
    ]) {
      assert.equal(parseWebviewMessage(junk), undefined, JSON.stringify(junk));
    }
  });
});
