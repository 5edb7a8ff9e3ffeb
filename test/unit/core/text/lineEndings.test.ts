import assert from 'node:assert/strict';
import { parseLatex } from '../../../../src/core/manuscript/latex';
import { parseMarkdown } from '../../../../src/core/manuscript/markdown';
import { decodeText } from '../../../../src/core/text/decode';
import { LineIndex } from '../../../../src/core/text/positions';

const LINES = [
  '\\documentclass{article}',
  '% a comment',
  '\\begin{document}',
  'First claim \\cite{k}.',
  '',
  'Second claim \\cite{nokey}.',
  '\\bibliography{refs}',
  '\\end{document}',
  '',
];

describe('files with carriage returns alone as line ends', () => {
  it('ends a LaTeX comment at a lone CR and finds the citations after it, where the editor shows them', () => {
    for (const end of ['\r', '\n', '\r\n']) {
      const parsed = parseLatex(LINES.join(end), '/p/paper.tex');
      assert.deepEqual(
        parsed.citations.map((c) => `${c.key} ${c.range.start.line}:${c.range.start.character}`),
        ['k 3:18', 'nokey 5:19'],
        JSON.stringify(end),
      );
      assert.deepEqual(
        parsed.claims.map((c) => c.text),
        ['First claim.', 'Second claim.'],
      );
      assert.equal(parsed.bibliographies[0].range.start.line, 6);
    }
  });

  it('counts lines as the editor does on a mix of line ends', () => {
    const text = LINES.map((line, i) => line + ['\n', '\r\n', '\r'][i % 3]).join('');
    const parsed = parseLatex(text, '/p/paper.tex');
    const lines = new LineIndex(text);
    assert.deepEqual(
      parsed.citations.map((c) => c.range.start),
      [lines.positionAt(text.indexOf('k}')), lines.positionAt(text.indexOf('nokey'))],
    );
    assert.deepEqual(
      parsed.citations.map((c) => c.range.start.line),
      [3, 5],
    );
  });

  it('reads Markdown front matter with lone CRs', () => {
    const parsed = parseMarkdown(['---', 'bibliography: refs.bib', '---', 'Text [@k].', ''].join('\r'), '/p/paper.md');
    assert.deepEqual(
      parsed.bibliographies.map((b) => `${b.name} ${b.range.start.line}:${b.range.start.character}`),
      ['refs.bib 1:14'],
    );
    assert.deepEqual(
      parsed.citations.map((c) => `${c.key} ${c.range.start.line}`),
      ['k 3'],
    );
  });
});

describe('UTF-32 files', () => {
  function utf32(text: string, bigEndian: boolean): Uint8Array {
    const codePoints = [0xfeff, ...[...text].map((c) => c.codePointAt(0) ?? 0)];
    const bytes = Buffer.alloc(4 * codePoints.length);
    codePoints.forEach((c, i) => (bigEndian ? bytes.writeUInt32BE(c, 4 * i) : bytes.writeUInt32LE(c, 4 * i)));
    return bytes;
  }

  it('refuses them, naming the encoding, rather than reading them as UTF-16', () => {
    assert.throws(() => decodeText(utf32(LINES.join('\n'), false), '/p/a.tex'), /\/p\/a\.tex is encoded as UTF-32LE, which Attest \(and VS Code\) cannot read: save it as UTF-8\./);
    assert.throws(() => decodeText(utf32(LINES.join('\n'), true), '/p/a.tex'), /is encoded as UTF-32BE/);
  });

  it('still reads UTF-16 with a byte-order mark', () => {
    assert.equal(decodeText(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Text \\cite{k}.', 'utf16le')]), '/p/a.tex'), 'Text \\cite{k}.');
  });
});
