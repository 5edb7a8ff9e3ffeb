import assert from 'node:assert/strict';
import { doiUrl, linkTarget, markdownCode, markdownLink, markdownText } from '../../../src/core/markdownText';

/** CommonMark as a hover shows it; markdown-it is what @vscode/vsce renders a README with. */
const markdownIt = (require('markdown-it') as () => { render(source: string): string })();
const render = (markdown: string): string => markdownIt.render(markdown).trim();

describe('outside text in the Markdown of hovers', () => {
  it('shows a citation key that holds an image link as text: no image is loaded on hover', () => {
    const key = 'x`![t](https://evil.example/pixel3.png)`';
    const html = render(`${markdownCode(key)} is not in any bibliography of this manuscript.`);
    assert.doesNotMatch(html, /<img/);
    assert.equal(html, '<p><code>x`![t](https://evil.example/pixel3.png)`</code> is not in any bibliography of this manuscript.</p>');
  });

  it('shows the key exactly, whatever backticks and spaces it starts or ends with', () => {
    for (const key of ['`a', 'b``', ' c ', 'plain', '``']) assert.equal(render(markdownCode(key)), `<p><code>${key}</code></p>`);
  });

  it('prints every piece of markup in .bib text as the characters written', () => {
    const title = '<img src=x onerror=alert(1)> **bold** [link](http://evil) $(alert) # 1. - > ~x~ a_b_ &amp; \\';
    const html = render(markdownText(title));
    assert.doesNotMatch(html, /<img|<strong>|<a |<h1|<ol|<ul|<blockquote|<del>|<em>/);
    assert.equal(html, `<p>${title.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</p>`);
  });

  it('links the whole DOI and URL even when they hold ")": the link goes where its text says', () => {
    const doi = '10.1234/x)![t](https://evil.example/pixel.png?';
    const doiHtml = render(markdownLink(`doi:${doi}`, doiUrl(doi)));
    assert.doesNotMatch(doiHtml, /<img/);
    assert.equal(doiHtml, `<p><a href="https://doi.org/10.1234/x%29!%5Bt%5D%28https%3A//evil.example/pixel.png%3F">doi:${doi}</a></p>`);
    const url = 'https://ok.example/)![t](https://evil.example/pixel2.png';
    const urlHtml = render(markdownLink(url, url));
    assert.doesNotMatch(urlHtml, /<img/);
    assert.equal(urlHtml, `<p><a href="https://ok.example/%29!%5Bt%5D%28https://evil.example/pixel2.png">${url}</a></p>`);
  });

  it('links http(s) only: a javascript:, command: or file: address is shown as text', () => {
    for (const url of ['javascript:alert(1)', 'command:workbench.action.terminal.new', 'file:///etc/passwd']) {
      assert.equal(render(markdownLink('x', url)), '<p>x</p>');
    }
    assert.equal(render(markdownLink('title', undefined)), '<p>title</p>');
  });

  it('keeps a link to the .bib whole when its file name holds brackets or spaces', () => {
    // markdown-it refuses file: links, which VS Code opens; the target is what matters here.
    assert.equal(linkTarget('file:///papers/a)b c.bib#L3'), 'file:///papers/a%29b%20c.bib#L3');
  });
});
