/*
 * What both pages build with. Their text comes from outside (titles, abstracts, a model's draft) and
 * may hold anything, so nodes are made with textContent only, never from HTML.
 */

/** The part of VS Code's webview API the pages use; `Sent` is what the extension accepts from the page. */
interface VsCodeApi<Sent> {
  postMessage(message: Sent): void;
}

declare function acquireVsCodeApi<Sent>(): VsCodeApi<Sent>;

/** The page's connection to the extension; acquired once, as VS Code allows. */
export function extension<Sent>(): VsCodeApi<Sent> {
  return acquireVsCodeApi<Sent>();
}

/**
 * The panel's fixed wording, which the extension writes into the page's body (webviewPage.ts) from
 * its own typed `PanelStrings`: the one thing the page reads unchecked, as it comes from no one else.
 */
export function panelStrings<Strings>(): Strings {
  return JSON.parse(document.body.dataset.strings ?? '{}') as Strings;
}

/** The empty element the page fills. */
export function pageRoot(): HTMLElement {
  const root = document.getElementById('root');
  if (root === null) throw new Error('the page has no #root');
  return root;
}

export function el<Tag extends keyof HTMLElementTagNameMap>(tag: Tag, className?: string, text?: string): HTMLElementTagNameMap[Tag] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** `template` with `{0}`, `{1}`… replaced by `args`; a number with no argument stays as written. */
export function format(template: string, ...args: readonly (string | number)[]): string {
  return template.replace(/\{(\d+)\}/g, (whole, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : whole));
}

/** The line of a paper under its title: authors, year and venue, those it has. */
export function metaLine(paper: { readonly authors: string; readonly year?: number; readonly venue?: string }): string {
  return [paper.authors, paper.year === undefined ? '' : String(paper.year), paper.venue ?? ''].filter((part) => part !== '').join(' · ');
}

/** Calls `show` with each message the extension sends that `isMessage` accepts; anything else is dropped. */
export function onMessage<Message>(isMessage: (value: unknown) => value is Message, show: (message: Message) => void): void {
  window.addEventListener('message', (event: MessageEvent<unknown>) => {
    if (isMessage(event.data)) show(event.data);
  });
}
