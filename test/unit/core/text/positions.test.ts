import assert from 'node:assert/strict';
import { LineIndex } from '../../../../src/core/text/positions';

/** Each offset's line and character as the editor counts them, a line ending at LF, CRLF or a lone CR. */
function editorPositions(text: string): string[] {
  const positions: string[] = [];
  let line = 0;
  let character = 0;
  for (let i = 0; i <= text.length; i++) {
    positions.push(`${line}:${character}`);
    const c = text[i];
    if (c === '\n' || (c === '\r' && text[i + 1] !== '\n')) {
      line++;
      character = 0;
    } else character++;
  }
  return positions;
}

function indexPositions(text: string): string[] {
  const lines = new LineIndex(text);
  return Array.from({ length: text.length + 1 }, (_, offset) => {
    const { line, character } = lines.positionAt(offset);
    return `${line}:${character}`;
  });
}

describe('line index', () => {
  const MIXES = ['', 'one line', 'a\nb\r\nc\rd', '\r\n\r\n', '\r\r\n\n\r', '\n\r', 'ends with a lone CR\r', 'ends with CR LF\r\n', '\rstarts with a lone CR', 'x\r\r\r\ny\n\n\rz'];

  it('counts LF, CRLF and a lone CR as one line break each, in any mix', () => {
    for (const text of MIXES) assert.deepEqual(indexPositions(text), editorPositions(text), JSON.stringify(text));
  });

  it('counts lines as the editor does over a long text of mixed line ends', () => {
    const ends = ['\n', '\r\n', '\r', '\r\r\n', '\n\r'];
    const text = Array.from({ length: 400 }, (_, i) => 'w'.repeat(i % 7) + ends[(i * 3) % ends.length]).join('');
    assert.deepEqual(indexPositions(text), editorPositions(text));
    const lines = new LineIndex(text);
    assert.equal(lines.lineCount, Number(editorPositions(text)[text.length].split(':')[0]) + 1);
  });

  it('finds the offset of each line and character it gives', () => {
    for (const text of MIXES) {
      const lines = new LineIndex(text);
      for (let offset = 0; offset <= text.length; offset++) {
        assert.equal(lines.offsetAt(lines.positionAt(offset)), offset, `${JSON.stringify(text)} at ${offset}`);
      }
    }
  });
});
