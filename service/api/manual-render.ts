/**
 * The manual's Markdown as HTML (issue 39), with markdown-it: CommonMark plus GitHub's tables and strikethrough,
 * the dialect the pages are written in and GitHub shows them in. markdown-it was chosen over marked because it is
 * safe as configured here without a second library: raw HTML in a page is escaped (`html: false`), and links with
 * `javascript:`, `vbscript:`, `file:` or `data:` (but images) are refused by its own link check; marked passes raw
 * HTML through and leaves sanitising to the caller.
 *
 * What the served pages need beyond plain rendering, done on markdown-it's tokens:
 * - each heading gets the id GitHub gives it (github-slugger, duplicates numbered `-1`, `-2`), so an anchor that
 *   works in the repository works here;
 * - relative links are pointed at `/docs/...` (domain/operations/manual-paths.ts decides), anchors kept; a link out
 *   of `docs/` (the README, a source file) becomes plain text, as nothing serves it;
 * - an HTML comment standing alone (an editor's note) is dropped rather than shown escaped;
 * - code blocks can be scrolled sideways by keyboard (a focusable `pre`).
 */
import MarkdownIt from 'markdown-it';
import type { MarkdownIt as Markdown, StateCore, Token } from 'markdown-it';
import GithubSlugger from 'github-slugger';
import { manualLink } from '../domain/operations/manual-paths.js';

/** A page as rendered: its title (its first top-level heading) and the HTML of its body. */
export interface RenderedPage {
  title: string;
  html: string;
}

interface RenderEnv {
  /** The page's path under `docs/`, against which its relative links resolve. */
  file: string;
  title?: string;
}

const ALONE_COMMENT = /^<!--[\s\S]*-->$/;

function textOf(inline: Token | undefined): string {
  return (inline?.children ?? []).filter((t) => t.type === 'text' || t.type === 'code_inline').map((t) => t.content).join('');
}

/** Heading ids as GitHub makes them, and the page's title from its first `#` heading. */
function headingIds(state: StateCore): void {
  const env = state.env as unknown as RenderEnv;
  const slugger = new GithubSlugger();
  state.tokens.forEach((token, i) => {
    if (token.type !== 'heading_open') return;
    const text = textOf(state.tokens[i + 1]);
    token.attrSet('id', slugger.slug(text));
    if (token.tag === 'h1' && env.title === undefined) env.title = text;
  });
}

/** Links and images pointed at the served manual; links out of it made plain text. */
function manualLinks(state: StateCore): void {
  const env = state.env as unknown as RenderEnv;
  for (const block of state.tokens) {
    if (block.type !== 'inline' || block.children === null) continue;
    let outsideOpen = false;
    for (const token of block.children) {
      if (token.type === 'link_open') {
        const link = manualLink(env.file, String(token.attrGet('href') ?? ''));
        if (link.kind === 'manual') token.attrSet('href', link.href);
        if (link.kind === 'outside') {
          token.tag = 'span';
          token.attrs = [
            ['class', 'outside'],
            ['title', `${link.path} in Junction's source`],
          ];
          outsideOpen = true;
        }
      } else if (token.type === 'link_close' && outsideOpen) {
        token.tag = 'span';
        outsideOpen = false;
      } else if (token.type === 'image') {
        const link = manualLink(env.file, String(token.attrGet('src') ?? ''));
        if (link.kind === 'manual') token.attrSet('src', link.href);
      }
    }
  }
}

/** A paragraph that is only an HTML comment is an editor's note: with raw HTML escaped it would show as text. */
function dropComments(state: StateCore): void {
  const kept: Token[] = [];
  for (let i = 0; i < state.tokens.length; i++) {
    const token = state.tokens[i] as Token;
    const inline = state.tokens[i + 1];
    if (token.type === 'paragraph_open' && inline?.type === 'inline' && ALONE_COMMENT.test(inline.content.trim())) {
      i += 2;
      continue;
    }
    kept.push(token);
  }
  state.tokens = kept;
}

function focusablePre(html: string): string {
  return html.replace(/^<pre>/, '<pre tabindex="0">');
}

/** Renders the manual's pages; one instance serves every request (markdown-it keeps no state between renders). */
export class ManualRenderer {
  readonly #md: Markdown;

  constructor() {
    const md = new MarkdownIt('default', { html: false, linkify: false, typographer: false });
    md.core.ruler.push('junction_drop_comments', dropComments);
    md.core.ruler.push('junction_heading_ids', headingIds);
    md.core.ruler.push('junction_manual_links', manualLinks);
    const fence = md.renderer.rules.fence;
    const codeBlock = md.renderer.rules.code_block;
    if (fence !== undefined) md.renderer.rules.fence = (...args) => focusablePre(fence(...args));
    if (codeBlock !== undefined) md.renderer.rules.code_block = (...args) => focusablePre(codeBlock(...args));
    this.#md = md;
  }

  /** The page at `file` (its path under `docs/`) from its Markdown `source`. */
  render(file: string, source: string): RenderedPage {
    const env: RenderEnv = { file };
    const html = this.#md.render(source, env as unknown as Record<string, unknown>);
    return { title: env.title ?? file, html };
  }
}
