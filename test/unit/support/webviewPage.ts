import * as path from 'node:path';
import { runInNewContext } from 'node:vm';
import { REPO_ROOT } from './helpers';

/**
 * The little of the DOM the panels' pages use, enough to run one in Node and read what it shows. It
 * parses no HTML at all: a page that set `innerHTML` (or `outerHTML`, `insertAdjacentHTML`) throws,
 * so outside text can only ever reach it as text.
 */
export class FakeNode {
  readonly children: FakeNode[] = [];
  parent: FakeNode | undefined;
  className = '';
  title = '';
  disabled = false;
  type = '';
  checked = false;
  readonly attributes = new Map<string, string>();
  private readonly listeners = new Map<string, (() => void)[]>();

  constructor(
    readonly tag: string,
    private text = '',
  ) {}

  get textContent(): string {
    return this.tag === '#text' ? this.text : this.children.map((child) => child.textContent).join('');
  }

  set textContent(value: string) {
    if (this.tag === '#text') this.text = value;
    else this.replaceChildren(new FakeNode('#text', value));
  }

  set innerHTML(_: string) {
    throw new Error('the page set innerHTML');
  }

  set outerHTML(_: string) {
    throw new Error('the page set outerHTML');
  }

  insertAdjacentHTML(): never {
    throw new Error('the page called insertAdjacentHTML');
  }

  get classList(): { toggle(name: string, on: boolean): void } {
    return {
      toggle: (name, on) => {
        const names = new Set(this.className.split(' ').filter((n) => n !== ''));
        if (on) names.add(name);
        else names.delete(name);
        this.className = [...names].join(' ');
      },
    };
  }

  setAttribute(name: string, value: string): void {
    this.attributes.set(name, value);
  }

  addEventListener(type: string, listener: () => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  /** What a click or a tick does. */
  fire(type: 'click' | 'change'): void {
    for (const listener of this.listeners.get(type) ?? []) listener();
  }

  append(...nodes: (FakeNode | string)[]): void {
    for (const node of nodes.map((n) => (typeof n === 'string' ? new FakeNode('#text', n) : n))) {
      node.remove();
      node.parent = this;
      this.children.push(node);
    }
  }

  replaceChildren(...nodes: FakeNode[]): void {
    for (const child of this.children.splice(0)) child.parent = undefined;
    this.append(...nodes);
  }

  remove(): void {
    if (this.parent) this.parent.children.splice(this.parent.children.indexOf(this), 1);
    this.parent = undefined;
  }

  /** This node and every one under it, in document order. */
  *all(): Generator<FakeNode> {
    yield this;
    for (const child of this.children) yield* child.all();
  }

  /** The nodes under this one with the class `name` (what `.name` selects). */
  withClass(name: string): FakeNode[] {
    return [...this.all()].filter((node) => node !== this && node.className.split(' ').includes(name));
  }

  querySelector(selector: string): FakeNode | null {
    if (!/^\.[\w-]+$/.test(selector)) throw new Error(`the fake DOM selects by one class only, not ${selector}`);
    return this.withClass(selector.slice(1))[0] ?? null;
  }
}

/** A panel's page running on the fake DOM: what it shows, what it sent, and a way to send it messages. */
export interface RunningPage {
  readonly root: FakeNode;
  /** What the page posted to the extension, in order. */
  readonly posted: unknown[];
  /** Delivers a message from the extension, as VS Code's `postMessage` does. */
  receive(message: unknown): void;
}

interface PageBundler {
  bundleWebviews(outdir: string, write: false): Promise<{ outputFiles: { path: string; text: string }[] }>;
}

/** The pages' scripts as scripts/webviews.js bundles them for the package and the panels, by page name. */
export async function bundledPages(): Promise<Map<string, string>> {
  const { bundleWebviews } = require(path.join(REPO_ROOT, 'scripts/webviews.js')) as PageBundler;
  const { outputFiles } = await bundleWebviews(path.join(REPO_ROOT, 'dist/webview'), false);
  return new Map(outputFiles.map((file) => [path.basename(file.path, '.js'), file.text]));
}

/** Runs `script` as the panel's HTML shell would (webviewPage.ts): `strings` in the body's data, an empty root. */
export function runPage(script: string, strings: object): RunningPage {
  const root = new FakeNode('main');
  const posted: unknown[] = [];
  const listeners: ((event: { data: unknown }) => void)[] = [];
  const document = {
    body: { dataset: { strings: JSON.stringify(strings) } },
    getElementById: (id: string) => (id === 'root' ? root : null),
    createElement: (tag: string) => new FakeNode(tag),
    createTextNode: (text: string) => new FakeNode('#text', text),
  };
  const window = { addEventListener: (type: string, listener: (event: { data: unknown }) => void) => type === 'message' && listeners.push(listener) };
  // A copy, as postMessage sends one: the page's objects belong to its own realm.
  const acquireVsCodeApi = () => ({ postMessage: (message: unknown) => posted.push(JSON.parse(JSON.stringify(message))) });
  runInNewContext(script, { document, window, acquireVsCodeApi, URL });
  return { root, posted, receive: (data) => listeners.forEach((listener) => listener({ data })) };
}
